"""A tiny library whose tests pass tensors too large to keep, call it in a loop and spend the copy budget of
one test (tests/probe/discover/test_probe_suite_copies.py)."""

import torch

__all__ = ["count", "scale", "total"]


def total(x: torch.Tensor) -> torch.Tensor:
    return x.sum()


def scale(x: torch.Tensor, factor: float = 2.0) -> torch.Tensor:
    return x * factor


def count(x: torch.Tensor) -> int:
    return x.numel()
