"""Its ``__all__`` lists the class itself, not its name (as e3nn.o3.experimental did): ``from halflib.listed
import *`` raises TypeError."""

import torch


class Widen(torch.nn.Module):
    """Never surveyed: its module is left out.

    >>> Widen()(torch.ones(2, 3)).shape
    torch.Size([2, 6])
    """

    def forward(self, x):
        return torch.cat([x, x], dim=-1)


__all__ = [Widen]
