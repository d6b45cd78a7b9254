"""A module class of the tiny docstring-only library."""

import torch


class Scaler(torch.nn.Module):
    """Multiply by a learnt-looking constant; the example builds an instance and calls it.

    Examples:
        >>> layer = Scaler(4.0)
        >>> layer(torch.ones(2, 2)).shape
        torch.Size([2, 2])
    """

    def __init__(self, factor: float):
        super().__init__()
        self.register_buffer("factor", torch.tensor(factor))

    def forward(self, x):
        return x * self.factor
