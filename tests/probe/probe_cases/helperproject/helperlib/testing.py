"""The library's testing helpers: its tests call them, with tensors. Not operators: discovery leaves them out
unless asked for."""

import torch

from .ops import scale

__all__ = ["assert_scales"]


def assert_scales(x):
    """Check that :func:`scale` doubles ``x``, and give the scaled tensor back.

    >>> assert_scales(torch.ones(2, 3)).shape
    torch.Size([2, 3])
    """
    scaled = scale(x)
    torch.testing.assert_close(scaled, 2 * x)
    return scaled
