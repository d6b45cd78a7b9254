"""The module discovery reads: one function with an example."""

import torch

__all__ = ["double"]


def double(x):
    """Twice ``x``.

    >>> double(torch.ones(2, 3)).shape
    torch.Size([2, 3])
    """
    return 2 * x
