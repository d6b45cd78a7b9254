"""aliaslib surveyed by hand and from its docstrings: the hand-written case names ``smooth`` by the path of its
defining module, discovery by the package's shorter path; both are the one object."""

import torch

from probe_cases.aliaslib.filters import smooth
from sphinx_kexport.probe import case, cases_from_docstrings

HAND = [case("smooth", smooth, [torch.ones(2, 5)], package="probe_cases.aliaslib",
             ref="probe_cases.aliaslib.filters.smooth")]
CASES = HAND + cases_from_docstrings("probe_cases.aliaslib", time_limit=5)
