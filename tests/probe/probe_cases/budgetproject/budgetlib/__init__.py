"""A tiny library whose test suite has a test that calls it and then runs far past discovery's time limit."""

import torch

__all__ = ["scale", "shift"]


def shift(x: torch.Tensor, by: float = 1.0) -> torch.Tensor:
    return x + by


def scale(x: torch.Tensor, by: float = 2.0) -> torch.Tensor:
    return x * by
