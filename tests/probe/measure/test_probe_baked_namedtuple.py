"""A baked NamedTuple argument (kornia's ``params=`` of ParamItem) survives device placement.

The kornia survey's ``AugmentationSequential[doc 2]`` and five more died in the worker ("vanished during
start-up") because the placement rebuilt a NamedTuple from one generator argument."""

from __future__ import annotations

from typing import NamedTuple

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.case_run import CaseRun  # noqa: E402


class Item(NamedTuple):
    name: str
    data: torch.Tensor


def scale(x, params):
    return x * params.data


def test_a_baked_namedtuple_is_placed_field_by_field():
    spec = case("scale[params]", scale, [torch.ones(2, 3)], {"params": Item("gain", torch.full((1,), 2.0))},
                package="probe_cases.named")
    placed = CaseRun(spec, "cpu").kwargs["params"]
    assert type(placed) is Item and placed.name == "gain" and torch.equal(placed.data, torch.full((1,), 2.0))
    assert torch.equal(scale(torch.ones(2, 3), placed), torch.full((2, 3), 2.0))
