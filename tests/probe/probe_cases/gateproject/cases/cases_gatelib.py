"""One case per operator of gatelib."""

import torch

import gatelib
from sphinx_kexport.probe import case


def image() -> torch.Tensor:
    """The input every case takes (the case module's own code: a case depends on it too)."""
    return torch.rand(2, 3)


CASES = [case(name, getattr(gatelib, name), [image()], package="gatelib")
         for name in ("brighten", "darken", "contrast", "negate")]
