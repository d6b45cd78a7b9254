"""One case per operator of fixlib."""

import torch

import fixlib
from sphinx_kexport.probe import case

CASES = [case(name, getattr(fixlib, name), [torch.rand(2, 3)], package="fixlib")
         for name in ("normalise", "double_if_positive")]
