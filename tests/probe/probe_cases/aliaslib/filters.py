"""Where ``smooth`` is defined; the package re-exports it."""

from __future__ import annotations

import torch

__all__ = ["smooth"]


def smooth(x):
    """Average each value with its right neighbour.

    >>> smooth(torch.ones(2, 5)).shape
    torch.Size([2, 4])
    >>> smooth(torch.ones(3, 6)).shape
    torch.Size([3, 5])
    """
    return (x[..., 1:] + x[..., :-1]) / 2
