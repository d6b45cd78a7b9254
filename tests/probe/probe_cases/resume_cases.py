"""Cheap cases that log every call, so a test can tell which cases a resumed run measured again.

Each call appends the case's name to the file named by $KEXPORT_CALL_LOG (when set).
"""

import os

import torch

from sphinx_kexport.probe import case


def _log(name):
    path = os.environ.get("KEXPORT_CALL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(name + "\n")


def scaled(x):
    _log("scaled")
    return x * 3.0


def shifted(x):
    _log("shifted")
    return x + 1.5


def squared(x):
    _log("squared")
    return x * x


def clipped(x):
    _log("clipped")
    return torch.clamp(x, 0.25, 0.75)


def mixed(x, y):
    _log("mixed")
    return x * y - y


def branchy(x):
    _log("branchy")
    if x.mean() > 0.5:
        return x - 1
    return x + 1


x = torch.rand(2, 3)
CASES = [
    case("scaled", scaled, [x], package="probe_cases.resume"),
    case("shifted", shifted, [x], package="probe_cases.resume"),
    case("squared", squared, [x], package="probe_cases.resume"),
    case("clipped", clipped, [x], package="probe_cases.resume"),
    case("mixed", mixed, [x, torch.rand(2, 3)], package="probe_cases.resume"),
    case("branchy", branchy, [x], package="probe_cases.resume"),
]
