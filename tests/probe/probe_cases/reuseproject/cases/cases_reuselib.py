"""One case per operator of reuselib."""

import torch

import reuselib
from sphinx_kexport.probe import case

CASES = [case(name, getattr(reuselib, name), [torch.rand(2, 3)], package="reuselib")
         for name in ("doubled", "halved", "negated", "shifted")]
