"""Cases over layers holding a :class:`probe_cases.hiddenlib.Label`, which refuses ``len()``, iteration, ``==``,
``bool()`` and hashing and prints its ``id()``: held by the module, and passed to the call as a kwarg."""

import torch

from probe_cases.hiddenlib import Label, Scale
from sphinx_kexport.probe import case

x = torch.rand(2, 3)
CASES = [
    case("Scale", Scale(Label("a", 2.0)), [x], package="probe_cases.hiddenlib"),
    case("Scale[passed]", Scale(Label("a", 2.0)), [x], {"label": Label("b", 3.0)}, package="probe_cases.hiddenlib"),
]
