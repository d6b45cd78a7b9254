"""One case per operator of gatelib."""

import torch

import gatelib
from sphinx_kexport.probe import case

CASES = [case(name, getattr(gatelib, name), [torch.rand(2, 3)], package="gatelib")
         for name in ("brighten", "darken", "contrast", "negate")]
