"""A tiny metrics library whose docstring examples name their tensors ``preds`` and ``target`` (as
torchmetrics does) and call a module named ``model``: the repro of each discovered case must keep them apart."""

from __future__ import annotations

import torch

__all__ = ["Doubler", "Weighted", "checked_error", "squared_error"]


def squared_error(preds, target):
    """Mean squared error.

    >>> preds = torch.rand(2, 3)
    >>> target = torch.rand(2, 3)
    >>> squared_error(preds, target).shape
    torch.Size([])
    """
    return ((preds - target) ** 2).mean()


def checked_error(preds, target):
    """Mean absolute error, refusing negative predictions with a Python check on their values.

    >>> preds = torch.rand(2, 3)
    >>> target = torch.rand(2, 3)
    >>> checked_error(preds, target).shape
    torch.Size([])
    """
    if (preds < 0).any():
        raise ValueError("predictions must be non-negative")
    return (preds - target).abs().mean()


class Doubler(torch.nn.Module):
    """Scales ``x`` by a factor chosen by name: the tensor is not the leading argument.

    >>> model = Doubler()
    >>> x = torch.rand(2, 3)
    >>> model("twice", x).shape
    torch.Size([2, 3])
    """

    def forward(self, mode, x):
        return x * (2.0 if mode == "twice" else 1.0)


class Weighted(torch.nn.Module):
    """Sums any number of tensors, then scales by the weight it was built with (``forward(*tensors)``),
    also when they are spread from a list (``model(*pair)``).

    >>> model = Weighted(0.5)
    >>> a, b = torch.rand(2, 3), torch.rand(2, 3)
    >>> model(a, b).shape
    torch.Size([2, 3])
    >>> pair = [torch.rand(4), torch.rand(4)]
    >>> model(*pair).shape
    torch.Size([4])
    """

    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, *tensors):
        return sum(tensors) * self.weight
