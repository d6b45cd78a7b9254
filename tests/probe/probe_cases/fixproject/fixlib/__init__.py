"""A two-operator library with a graph break each: tests/probe/cli/test_probe_fix_report.py copies it, surveys it,
removes both breaks (the same numbers, computed in one graph) and surveys it again."""

import torch


def normalise(x: torch.Tensor) -> torch.Tensor:
    return x / x.abs().max().item()


def double_if_positive(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x * 2
    return x - 1
