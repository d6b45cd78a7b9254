"""Operators whose speed under torch.compile is known, for the speed pass (--speed).

Observed with plain scripts on torch 2.13 CPU first; the tests assert on the snapshot the real command writes.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.speed"


def fused_chain(x):
    # forty elementwise operations: eager reads and writes the whole tensor forty times, inductor fuses them
    # into one loop (about 10x faster at 1x32768 on one thread)
    for _ in range(20):
        x = x * 1.001 + 0.5
    return x


def add_one(x):
    # one tiny operation: the compiled call's guards and wrapper cost more than the operation itself
    return x + 1


CASES = [
    case("fused_chain", fused_chain, [torch.rand(1, 32768)], package=PKG),
    case("add_one", add_one, [torch.rand(2, 3)], package=PKG),
]
