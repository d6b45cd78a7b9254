"""Two cheap cases and a ``skip=`` one, for the rerun that must leave the snapshot byte for byte
(tests/probe/survey/test_probe_no_churn.py); with $KEXPORT_NOCHURN_MORE=1 a third case is registered, so that a run
measures something."""

import os

import torch

from sphinx_kexport.probe import case


def tripled(x):
    return x * 3.0


def shifted(x):
    return x - 1.0


def squared(x):
    return x * x


x = torch.rand(2, 3)
CASES = [
    case("tripled", tripled, [x], package="probe_cases.nochurn"),
    case("shifted", shifted, [x], package="probe_cases.nochurn"),
    case("not_a_graph", None, [], package="probe_cases.nochurn", skip="converts to numpy: not a tensor graph"),
]
if os.environ.get("KEXPORT_NOCHURN_MORE") == "1":
    CASES.append(case("squared", squared, [x], package="probe_cases.nochurn"))
