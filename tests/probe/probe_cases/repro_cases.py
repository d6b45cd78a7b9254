"""Failing cells of every kind, for `probe repro`: each snippet must fail as the probe recorded.

argmax_with_nan's failure depends on where the NaN is, so its case gives ``code`` that rebuilds the
exact inputs; the others fail whatever the values (a missing lowering, a branch on values, a dtype).
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.repro"


def singular_values(x):
    return torch.linalg.svd(x)[1]  # no ONNX lowering


def branch_on_values(x):
    if x.sum() > 0:  # torch.export and ONNX cannot capture it
        return x * 2
    return x - 1


def erf_float64(x):
    return torch.erf(x.double())  # onnxruntime has no float64 Erf kernel


def argmax_with_nan(x):
    return torch.argmax(x.flatten(1), dim=1)  # onnxruntime ignores NaN: a mismatch


def nan_input():
    """The exact input of argmax_with_nan (seeded), for the case and for its repro."""
    generator = torch.Generator().manual_seed(5)
    x = torch.rand(2, 3, 4, 4, generator=generator)
    x[0, 0, 1, 1] = float("nan")
    return x


class Gain(torch.nn.Module):
    """A module whose constructor argument matters: Gain() is not what is probed."""

    def __init__(self, factor: float):
        super().__init__()
        self.register_buffer("factor", torch.tensor(factor))

    def forward(self, x):
        if x.sum() > 0:
            return x * self.factor
        return x


CASES = [
    case("singular_values", singular_values, [torch.rand(4, 4)], package=PKG),
    case("branch_on_values", branch_on_values, [torch.rand(2, 3)], package=PKG),
    case("erf_float64", erf_float64, [torch.rand(2, 3)], package=PKG),
    case("argmax_with_nan", argmax_with_nan, [nan_input()], package=PKG,
         code="import probe_cases.repro_cases as cases\ntarget = cases.argmax_with_nan\ninputs = (cases.nan_input(),)"),
    case("gain[module]", Gain(2.5), [torch.rand(2, 3)], package=PKG,
         code="from probe_cases.repro_cases import Gain\ntarget = Gain(2.5)"),
]
