"""The helper the operators share."""

import torch

EPS = 1e-6


def normalize(x: torch.Tensor) -> torch.Tensor:
    """Scale ``x`` into [-1, 1]."""
    return x / (x.abs().max() + EPS)


def default_gain() -> float:
    """The gain a ``Gain`` is built with."""
    return 2.0
