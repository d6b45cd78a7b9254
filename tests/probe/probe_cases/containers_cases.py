"""A module that takes and returns dicts, lists and tuples of tensors, registered without a wrapper."""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.containers"


class Pyramid(torch.nn.Module):
    """A feature-pyramid head: a dict of levels in, a dict and a list out."""

    def __init__(self, channels: int):
        super().__init__()
        self.mix = torch.nn.Conv2d(channels, channels, 1)

    def forward(self, levels, scales):
        out = {name: self.mix(level) * scales[0] for name, level in levels.items()}
        return out, [out["p3"].mean(), scales[1] + 1]


torch.manual_seed(3)
pyramid = Pyramid(2)
levels = {"p3": torch.rand(1, 2, 8, 8), "p4": torch.rand(1, 2, 4, 4)}
scales = (torch.tensor(2.0), torch.rand(3))

CASES = [
    case("pyramid[dict]", pyramid, [levels, scales], package=PKG,
         code="from probe_cases.containers_cases import Pyramid\ntorch.manual_seed(3)\ntarget = Pyramid(2)"),
]
