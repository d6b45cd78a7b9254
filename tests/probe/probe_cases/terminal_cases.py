"""One case of each kind a terminal's progress bar must count without a status it lacks, for
tests/probe/cli/test_probe_terminal.py (its own module so the run is short and needs a short time limit):

* ``hangs`` never returns, even eagerly: with a short --timeout every path is ``timeout``;
* ``wrong_shapes`` raises eagerly: every path is ``n/a`` at stage ``eager``;
* ``read_null_pointer`` crashes its worker (SIGSEGV) eagerly: every path is ``fail`` at stage ``process``.
"""

import ctypes
import time

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.terminal"


def hangs(x):
    time.sleep(3600)
    return x


def wrong_shapes(x, y):
    return x @ y


def read_null_pointer(x):
    ctypes.string_at(0)
    return x


CASES = [
    case("hangs", hangs, [torch.rand(2, 2)], package=PKG),
    case("wrong_shapes", wrong_shapes, [torch.rand(2, 3), torch.rand(4, 5)], package=PKG),
    case("read_null_pointer", read_null_pointer, [torch.rand(2, 2)], package=PKG),
]
