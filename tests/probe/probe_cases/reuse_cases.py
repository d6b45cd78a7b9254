"""Cheap cases that log every call, so a test sees which cases a rerun measured again.

Each call appends the case's name to $KEXPORT_CALL_LOG (when set); with
$KEXPORT_EXTRA_CASE=1 one more case is registered ("added").
"""

import os

import torch

from sphinx_kexport.probe import case


def _log(name):
    path = os.environ.get("KEXPORT_CALL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(name + "\n")


def doubled(x):
    _log("doubled")
    return x * 2.0


def halved(x):
    _log("halved")
    return x * 0.5


def added(x):
    _log("added")
    return x + 1.0


x = torch.rand(2, 3)
CASES = [
    case("doubled", doubled, [x], package="probe_cases.reuse"),
    case("halved", halved, [x], package="probe_cases.reuse"),
    case("skipped", None, [], package="probe_cases.reuse", skip="not a tensor graph"),
]
if os.environ.get("KEXPORT_EXTRA_CASE") == "1":
    CASES.append(case("added", added, [x], package="probe_cases.reuse"))
