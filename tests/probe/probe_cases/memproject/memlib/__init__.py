"""A tiny library whose tests hold large tensors, fail holding them, and run in float32 and float64 through an
autouse fixture (tests/probe/discover/test_probe_suite_memory.py)."""

import torch

__all__ = ["total"]


def total(x: torch.Tensor) -> torch.Tensor:
    return x.sum()
