"""One walk over a case's inputs (cases/containers.py): a NamedTuple keeps its type wherever inputs or baked
arguments are rebuilt, and the fingerprints of existing cases stay as they were (the committed snapshots reuse
results by fingerprint)."""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe import CaseError, case  # noqa: E402
from sphinx_kexport.probe.cases import containers  # noqa: E402
from sphinx_kexport.probe.cases.batch_dim import map_leaves  # noqa: E402
from sphinx_kexport.probe.cases.fingerprint import case_definition  # noqa: E402
from sphinx_kexport.probe.measure.case_run import CaseRun  # noqa: E402
from sphinx_kexport.probe.measure.dynamic_batch import at_batch  # noqa: E402


class Pair(NamedTuple):
    left: torch.Tensor
    right: torch.Tensor


def first(*args, **kwargs):
    return args[0]


def t(*shape):
    return torch.arange(int(torch.tensor(shape).prod()), dtype=torch.float32).reshape(shape) / 7


def representative_cases():
    return {
        "tensor": case("first[t]", first, [t(2, 3)], package="pins"),
        "dict": case("first[d]", first, [{"p3": t(2, 4), "p4": t(2, 2)}], package="pins"),
        "list_tuple": case("first[lt]", first, [[t(2, 3), t(2, 3)], (t(2, 1),)], package="pins"),
        "nested": case("first[n]", first, [{"a": [t(3, 2), (t(3, 1), t(3))]}], package="pins"),
        "namedtuple": case("first[nt]", first, [Pair(t(2, 2), t(2, 3))], package="pins"),
        "namedtuple_kwarg": case("first[ntk]", first, [t(2, 2)], {"pair": Pair(t(1), t(2))}, package="pins"),
    }


def pin(spec) -> str:
    """The case's definition (what its fingerprint hashes) apart from its name and its target's module."""
    definition = {k: v for k, v in case_definition(spec).items() if k not in ("name", "target")}
    return hashlib.sha256(json.dumps(definition, sort_keys=True, default=str).encode()).hexdigest()[:16]


# computed with the walkers as they were before there was one (containers.rebuild made a NamedTuple a tuple)
PINS = {
    "tensor": "677ce4271a418a5e",
    "dict": "414542074f09f36f",
    "list_tuple": "b5865691a1989f7e",
    "nested": "7b9fcc059cd39ecf",
    "namedtuple": "3cf776a693f90f1b",
    "namedtuple_kwarg": "0342b33e9b741a46",
}


def test_the_fingerprints_of_existing_cases_do_not_change():
    assert {key: pin(spec) for key, spec in representative_cases().items()} == PINS


def test_a_named_tuple_input_keeps_its_type_in_every_fresh_copy_and_batch():
    spec = representative_cases()["namedtuple"]
    (fresh,) = CaseRun(spec, "cpu").inputs()
    assert type(fresh) is Pair and torch.equal(fresh.right, t(2, 3)) and fresh.right is not spec.inputs[0].right
    (grown,) = at_batch((fresh,), spec.batch.dims, 5)
    assert type(grown) is Pair and grown.left.shape == (5, 2) and grown.right.shape == (5, 3)
    (shapes,) = map_leaves((fresh,), spec.batch.dims, lambda _, d: {d: "batch"} if d is not None else None)
    assert shapes == Pair({0: "batch"}, {0: "batch"})
    # as a baked argument too (kornia's ParamItem), and named by the exporter like any tuple
    placed = CaseRun(representative_cases()["namedtuple_kwarg"], "cpu").kwargs["pair"]
    assert type(placed) is Pair
    assert [name for name, _ in containers.input_leaves(spec.inputs)] == ["in0_0", "in0_1"]
    assert containers.skeleton(spec.inputs[0]) == (None, None) and type(containers.skeleton(spec.inputs[0])) is tuple


def test_case_refuses_what_it_refused_with_the_same_labels():
    with pytest.raises(CaseError, match=r"inputs\[0\]\['a'\]\[1\] is a int"):
        case("first[bad]", first, [{"a": [t(2), 3]}], package="pins")
    with pytest.raises(CaseError, match=r"inputs\[0\] is a dict"):  # a key that is not a string
        case("first[bad]", first, [{1: t(2)}], package="pins")
    with pytest.raises(CaseError, match=r"inputs\[1\]\[0\] is a list"):  # an empty list is no input
        case("first[bad]", first, [t(2), ([],)], package="pins")
