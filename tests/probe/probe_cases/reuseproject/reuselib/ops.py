"""The operators."""

import torch


def doubled(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def halved(x: torch.Tensor) -> torch.Tensor:
    return x / 2


def negated(x: torch.Tensor) -> torch.Tensor:
    return -x


def shifted(x: torch.Tensor) -> torch.Tensor:
    return x + 1
