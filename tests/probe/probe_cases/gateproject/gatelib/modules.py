"""A module whose constructor decides what it computes."""

import torch

from ._common import default_gain


class Gain(torch.nn.Module):
    """Scale by the gain its constructor picks: a plain attribute, which the module's repr does not show, so
    only the code that built it says that it changed."""

    def __init__(self) -> None:
        super().__init__()
        self.gain = default_gain()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.gain
