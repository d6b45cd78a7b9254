"""The library's one operator."""

import torch

__all__ = ["scale"]


def scale(x, factor=2.0):
    """``x`` times ``factor``.

    >>> scale(torch.ones(2, 3)).shape
    torch.Size([2, 3])
    """
    return x * factor
