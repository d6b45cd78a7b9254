"""A library object that refuses len(), iteration, ==, bool() and hashing and prints its id() (issue 43).

e3nn's layers hold an ``Irreps`` (a tuple whose items refuse ``len()`` on purpose); describing the Quickstart case
``case("Norm[hand]", o3.Norm("2x1o"), ...)`` called ``len()`` on it and the probe exited 2 calling itself buggy.
:class:`probe_cases.hiddenlib.Label` refuses the same on purpose and prints its ``id()`` in its repr; the cases
in probe_cases/hidden_cases.py hold one in the module and pass another as a kwarg.
"""

from __future__ import annotations

import io
import json
import os
import pickle
from pathlib import Path

import pytest

from probe_cli import probe_cli

torch = pytest.importorskip("torch")

from probe_cases.hiddenlib import Label, Scale  # noqa: E402
from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.cases.slice.equality import same_value  # noqa: E402
from sphinx_kexport.probe.cases.containers import rebuild  # noqa: E402
from sphinx_kexport.probe.cases.fingerprint import case_definition, stable_repr  # noqa: E402
from sphinx_kexport.probe.cases.literals import literal_source  # noqa: E402
from sphinx_kexport.probe.discover.case_pickle import CasePickler, CaseUnpickler  # noqa: E402
from sphinx_kexport.probe.measure.explain import explain_exception  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "hidden_cases.py"


def test_the_fixture_refuses_what_it_says():
    label = Label("a", 2.0)
    for question in (len, iter, bool, hash, lambda v: v == v, lambda v: 1 in v):
        with pytest.raises((NotImplementedError, TypeError)):
            question(label)
    assert str(id(label)) in repr(label)


def _spec(label_in_module, label_passed=None):
    kwargs = {"label": label_passed} if label_passed is not None else None
    return case("Scale", Scale(label_in_module), [torch.ones(2, 3)], kwargs, package="probe_cases.hiddenlib")


def test_two_builds_of_the_same_case_have_one_definition():
    """What a fingerprint covers does not hold an id(): the inventory's child and the worker build the case
    in two processes, and a second probe run in a third."""
    first, second = _spec(Label("a", 2.0), Label("b", 3.0)), _spec(Label("a", 2.0), Label("b", 3.0))
    assert case_definition(first) == case_definition(second)
    assert case_definition(first) != case_definition(_spec(Label("c", 2.0), Label("b", 3.0)))
    assert str(id(first.target.label)) not in stable_repr(first.target)


def test_a_case_over_a_hidden_object_comes_back_from_pickle_as_the_same_case():
    """The discovery cache pickles a discovered case and checks it comes back with the same definition."""
    spec = _spec(Label("a", 2.0), Label("b", 3.0))
    body = io.BytesIO()
    pickler = CasePickler(body, io.BytesIO())
    pickler.dump(spec)
    body.seek(0)
    again = CaseUnpickler(body, None, originals=pickler.storages).load()
    assert case_definition(again) == case_definition(spec)
    assert same_value(again.target, spec.target) and same_value(again.kwargs, spec.kwargs)
    assert pickle.loads(pickle.dumps(spec.kwargs["label"])).scale == 3.0


def test_the_same_value_is_read_past_the_overrides_and_another_one_is_told_apart():
    assert same_value(Scale(Label("a", 2.0)), Scale(Label("a", 2.0)))
    assert not same_value(Scale(Label("a", 2.0)), Scale(Label("a", 5.0)))
    assert same_value({"label": Label("b", 3.0)}, {"label": Label("b", 3.0)})


def test_a_library_tuple_has_no_plain_literal_and_is_not_rebuilt():
    label = Label("b", 3.0)
    assert literal_source(label) is None  # "(...)" would not rebuild a Label
    assert rebuild({"label": label}, lambda leaf: leaf)["label"] is label  # no tensor in it: kept itself


def test_dynamos_guard_calling_len_on_it_is_said_in_words():
    """torch 2.13 wraps it as "InternalTorchDynamoError: NotImplementedError: " (a guard's ``len()``)."""
    torch._dynamo.reset()
    try:
        with pytest.raises(Exception) as raised:
            torch.compile(Scale(Label("a", 2.0)), fullgraph=True, backend="eager")(torch.ones(2, 3))
    finally:
        torch._dynamo.reset()
    assert "InternalTorchDynamoError" in type(raised.value).__name__  # the raw text the page used to show
    reason = explain_exception(raised.value)
    assert reason.startswith("dynamo's guards call len() on probe_cases.hiddenlib.Label, which refuses it "
                             "(NotImplementedError)"), reason
    assert "InternalTorchDynamoError" not in reason


@pytest.mark.probe
def test_a_real_probe_run_describes_measures_reuses_and_writes_a_repro(tmp_path):
    pytest.importorskip("onnxruntime")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "tests" / "probe"), str(REPO)]))

    def probe():
        done = probe_cli("--cases", str(CASE_FILE), "--library", "probe_cases", "--out", str(tmp_path / "s.json"),
                         "--jobs", "1", "--no-dynamic", cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout, json.loads((tmp_path / "s.json").read_text())

    out, snapshot = probe()
    assert "measured 2, reused 0" in out and "bug in sphinx-kexport" not in out
    cases = {c["name"]: c for c in snapshot["cases"]}
    for name in ("Scale", "Scale[passed]"):
        results = cases[name]["results"]["cpu"]
        assert results["onnx"]["status"] == results["export"]["status"] == "ok", results
        assert results["compile"]["detail"].startswith("dynamo's guards call len() on probe_cases.hiddenlib.Label")
    # the repro rebuilds the module from the case's own expression (read past the Label's overrides) ...
    assert "target = Scale(Label('a', 2.0))" in cases["Scale"]["call"]
    # ... and says what it cannot write: the Label passed as a kwarg has no literal
    assert "# kwargs label have no source form" in cases["Scale[passed]"]["call"]
    again, _ = probe()
    assert "measured 0, reused 2" in again  # the fingerprints did not move with the Labels' ids


def test_a_repr_loses_addresses_and_the_ids_of_what_it_holds_and_keeps_other_numbers():
    from sphinx_kexport.probe.cases.opaque import address_free_repr

    class Raising:
        def __repr__(self):
            raise NotImplementedError

    label = Label("a", 2.0)
    held = [label, 1234567, "<function f at 0x7f3a2b1c0d00>", "0x7f3a2b1c0d00"]
    assert address_free_repr(held) == "[Label('a', id=<id>), 1234567, '<function f>', '']"
    assert address_free_repr(Raising()) == address_free_repr(Raising())  # the same text every time


def test_dynamos_bare_internal_error_without_a_telling_traceback_is_still_words():
    class InternalTorchDynamoError(RuntimeError):
        pass

    reason = explain_exception(InternalTorchDynamoError("NotImplementedError: "))
    assert reason == ("torch.compile's tracer (dynamo) failed inside itself with a NotImplementedError that carries "
                      "no message; the same call runs eagerly")


def test_a_repro_text_that_prints_an_address_keeps_one_definition():
    """e3nn's Activation[test]: its snippet's message printed ``<built-in method abs ... at 0x7f...>``, another
    address in every process, so every rerun measured it again."""
    def with_code(address: str):
        spec = case("neg[test]", torch.neg, [torch.ones(2)], package="p")
        spec.code = f"raise NotImplementedError('acts = [<built-in method abs of type object at {address}>]')\n"
        return case_definition(spec)

    assert with_code("0x7f24056cea40") == with_code("0x7f54426cea40")
    assert "0x" not in with_code("0x7f24056cea40")["code"] and "built-in method abs" in with_code("0x1234567")["code"]


def test_a_test_parameter_without_a_source_form_is_named_without_its_address(tmp_path, monkeypatch):
    """e3nn's Activation[test]: its test is parametrised with a list of torch functions, which no snippet can
    write out; the repro's message printed their addresses, another in every process, so each rerun rewrote the
    snapshot although it measured nothing."""
    from sphinx_kexport.probe import cases_from_tests

    (tmp_path / "actlib").mkdir()
    (tmp_path / "actlib" / "__init__.py").write_text(
        "import torch\n\n\nclass Act(torch.nn.Module):\n    def __init__(self, acts):\n        super().__init__()\n"
        "        self.acts = list(acts)\n\n    def forward(self, x):\n        for act in self.acts:\n"
        "            x = act(x)\n        return x\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_act.py").write_text(
        "import pytest\nimport torch\n\nfrom actlib import Act\n\n\n"
        "@pytest.mark.parametrize('acts', [[torch.abs, torch.tanh]])\ndef test_act(acts):\n"
        "    assert Act(acts)(torch.rand(2, 3)).shape == (2, 3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", "off")
    (spec,) = cases_from_tests("actlib", str(tmp_path / "tests"))
    assert "its parameter acts = [<built-in method abs of type object>, <built-in method tanh of type object>] " \
           "has no source form" in spec.code
    assert "0x" not in spec.code
