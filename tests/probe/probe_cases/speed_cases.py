"""Operators whose speed under torch.compile is known, for the speed pass (--speed).

Observed with plain scripts on torch 2.13 CPU first; the tests assert on the snapshot the real command writes.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.speed"


def fused_chain(x):
    # two hundred elementwise operations: eager reads and writes the whole tensor two hundred times, inductor
    # fuses them into one loop; long enough that the ratio's spread stays above 1 on a machine busy with the whole
    # test suite (with eighty, about 2.8x idle, a loaded run once read 4.5x with a spread down to 0.8)
    for _ in range(100):
        x = x * 1.001 + 0.5
    return x


def add_one(x):
    # one tiny operation: the compiled call's guards and wrapper cost more than the operation itself
    return x + 1


def python_heavy(x):
    # a thousand Python iterations before one tensor operation: a line tracer on while eager is timed (the code
    # watch follows this folder) would slow eager about threefold; dynamo, the exporters and onnxruntime fold it
    scale = 1.0
    for i in range(1000):
        scale += i * 1e-9
    return x * scale


def ramp():
    # no tensor input: a captured program may return what capturing computed (ONNX's optimiser folds it to a
    # constant), so its time says nothing of the operator's and the pass does not time it
    return torch.arange(4096.0).reshape(64, 64).cumsum(0)


CASES = [
    # 8192 wide: at batch 32 one eager call takes about 0.05 s idle; at 32768 a machine busy with the whole suite
    # stretched it to 0.7 s, which put timing that size over the pass's 10 s budget, and the size was skipped
    case("fused_chain", fused_chain, [torch.rand(1, 8192)], package=PKG),
    case("add_one", add_one, [torch.rand(2, 3)], package=PKG),
    case("python_heavy", python_heavy, [torch.rand(2, 8)], package=PKG),
    case("ramp", ramp, [], package=PKG),
]
