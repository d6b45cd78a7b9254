"""One case per operator of eagerlib; ``jitter`` is random (its noise drawn from the probe's seed)."""

import torch

import eagerlib
from sphinx_kexport.probe import case

CASES = [case("total", eagerlib.total, [torch.randn(1_000_000)], package="eagerlib"),
         case("jitter", eagerlib.jitter, [torch.rand(2, 3)], package="eagerlib", check=False)]
