"""Functions that call a helper dynamo does not trace (``torch.compiler.disable``), as e3nn's ``wigner_3j`` does.

Checked with plain scripts on torch 2.13: for ``disabled_first`` ``torch._dynamo.explain`` reports 1 graph and 0
breaks, ``fullgraph=True`` raises "Skip calling `torch.compiler.disable()`d function", and dynamo's graph-break
counter records one; ``disabled_between`` has traced code on both sides of the helper: 2 graphs, 1 break.
"""

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.skipped"


@torch.compiler.disable
def disabled_helper(x):
    return x + 1


def disabled_first(x):
    return disabled_helper(x) * 2


def disabled_between(x):
    return disabled_helper(torch.sin(x)) * 2


x = torch.rand(2, 3)
CASES = [
    case("disabled_first", disabled_first, [x], package=PKG),
    case("disabled_between", disabled_between, [x], package=PKG),
]
