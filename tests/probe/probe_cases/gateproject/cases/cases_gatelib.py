"""One case per operator of gatelib; ``negate`` through a helper of the case module's own; ``gain`` a module
whose constructor runs library code."""

import torch

import gatelib
from sphinx_kexport.probe import case


def negated(x: torch.Tensor) -> torch.Tensor:
    """The project's own code a case runs: a case depends on it as on the library's."""
    return gatelib.negate(x)


CASES = [case(name, getattr(gatelib, name), [torch.rand(2, 3)], package="gatelib")
         for name in ("brighten", "darken", "contrast")]
CASES.append(case("negate", negated, [torch.rand(2, 3)], package="gatelib"))
CASES.append(case("gain", gatelib.Gain(), [torch.rand(2, 3)], package="gatelib"))
