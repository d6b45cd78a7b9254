"""The dynamic-batch pass, as a user runs it: does each path's capture hold at another batch size?

One real survey of tests/probe/probe_cases/batch_cases.py (operators whose
batch behaviour is known, containers included) is shared by the tests of this
module; the assertions read the snapshot the command wrote. The other tests
check the case API, the reasons and the schema on real values. The reruns
(the reuse rule) and a crash in the pass: test_probe_dynamic_reruns.py.
"""

from __future__ import annotations

import json
import sys

import pytest

from batch_project import PATHS, REPO, probe, project, source_line


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    folder = project(tmp_path_factory.mktemp("dynamic"))
    done = probe("--jobs", "1", cwd=folder)
    out = folder / "support.json"
    snapshot = json.loads(out.read_text()) if out.exists() else None
    return {"run": done, "out": out, "snapshot": snapshot}


def dynamic(survey: dict, name: str, path: str) -> dict | None:
    case = {c["name"]: c for c in survey["snapshot"]["cases"]}[name]
    return case["results"]["cpu"][path].get("dynamic")


@pytest.mark.probe
def test_survey_writes_a_valid_snapshot_with_dynamic_results(survey):
    from sphinx_kexport.snapshot import load_snapshot

    assert survey["run"].returncode == 0, survey["run"].stderr
    load_snapshot(survey["out"])  # the dynamic results validate against the schema
    stdout = survey["run"].stdout
    assert "dynamic batch, torch.export:" in stdout and "static" in stdout  # the summary's counts
    assert "ok/dyn" in stdout and "ok/static" in stdout  # the per-case lines


@pytest.mark.probe
@pytest.mark.parametrize("name", ["batch_agnostic", "gaussian_blur2d", "per_sample_gate", "scale_by"])
def test_batch_agnostic_operators_hold_on_every_path(survey, name):
    # per_sample_gate: its rank-1 gate grows with the batch (held at batch 1 it made every export path
    # "fail" on a value branch, as kornia's 3D augmentations did); scale_by: a one-element factor that
    # grown no longer broadcasts is held as given instead
    for path in PATHS:
        result = dynamic(survey, name, path)
        assert result == {"status": "ok", "detail": "", "where": "", "traced_batch": 2, "run_batch": 3}, path


@pytest.mark.probe
def test_a_registered_batch_of_two_or_more_is_traced_as_is_and_run_at_one_more(survey):
    for path in PATHS:
        result = dynamic(survey, "batch_agnostic[batch 3]", path)
        assert (result["status"], result["traced_batch"], result["run_batch"]) == ("ok", 3, 4), path


@pytest.mark.probe
@pytest.mark.parametrize("name, kind, code", [
    ("loop_over_batch", "a Python loop over it", "for i in range(x.shape[0])"),
    ("branch_on_batch", "a Python branch on it", "if x.shape[0] == 2"),
])
def test_a_loop_or_branch_on_the_batch_is_static_on_every_path_with_its_line(survey, name, kind, code):
    for path in PATHS:
        result = dynamic(survey, name, path)
        assert result["status"] == "static", (path, result)
        assert result["detail"].startswith("works only at batch 2: ") and kind in result["detail"], path
        assert code in source_line(result["where"]) and code in result["detail"], path


@pytest.mark.probe
def test_the_batch_as_a_python_number_specialises_non_strict_export_only(survey):
    export = dynamic(survey, "batch_as_number", "export")
    assert export["status"] == "static" and "a conversion to a Python number" in export["detail"]
    assert "n = int(x.shape[0])" in source_line(export["where"])
    # dynamo traces int() of a size symbolically: compile holds, and the ONNX exporter's dynamo retry too
    assert dynamic(survey, "batch_as_number", "compile")["status"] == "ok"
    assert dynamic(survey, "batch_as_number", "onnx")["status"] == "ok"


@pytest.mark.probe
def test_a_recompilation_at_the_other_size_is_static_for_compile(survey):
    result = dynamic(survey, "loop_after_graph_break", "compile")
    assert result["status"] == "static" and result["detail"].startswith(
        "recompiles at batch 3: the guard on `y.shape[0]` failed (compiled for 2), set by `return torch.stack(")
    assert "for i in range(y.shape[0])" in source_line(result["where"])
    after = result["detail"].split(", after the graph break at ")[1]  # the branch on tensor values
    assert "if y.max() > 100" in source_line(after)


@pytest.mark.probe
def test_opting_out_and_unsupported_paths(survey):
    for path in PATHS:
        assert dynamic(survey, "loop_over_batch[opted out]", path) == {
            "status": "n/a", "detail": "the case opts out (batch=None)", "where": ""}
    assert dynamic(survey, "singular_values", "onnx") is None  # no ONNX lowering: nothing to vary
    assert dynamic(survey, "singular_values", "export")["status"] == "ok"


@pytest.mark.probe
@pytest.mark.parametrize("name, status", [("pyramid_scale[dict]", "ok"), ("loop_over_list_batch[list]", "static")])
def test_container_inputs_vary_the_batch_of_every_tensor_leaf(survey, name, status):
    for path in PATHS:
        result = dynamic(survey, name, path)
        assert (result["status"], result["traced_batch"], result["run_batch"]) == (status, 2, 3), (path, result)
    if status == "static":
        for path in PATHS:
            result = dynamic(survey, name, path)
            assert "a Python loop over it" in result["detail"], path
            assert "for i in range(a.shape[0])" in source_line(result["where"]), path


@pytest.mark.probe

def test_config_reads_the_dynamic_key_and_the_flag(tmp_path):
    from types import SimpleNamespace

    from sphinx_kexport.probe.survey.config import ConfigError, build_config

    def args(**given):
        names = ("config", "cases", "out", "device", "library", "jobs", "timeout", "opset", "shard", "only",
                 "keep_work", "fresh", "rediscover", "stats", "no_dynamic")
        return SimpleNamespace(**{n: given.get(n) for n in names})

    assert build_config(args(), project(tmp_path)).dynamic is True
    assert build_config(args(), project(tmp_path, "dynamic = false\n")).dynamic is False
    assert build_config(args(no_dynamic=True), project(tmp_path)).dynamic is False
    with pytest.raises(ConfigError, match=r"key dynamic: expected true or false.*found 'no'"):
        build_config(args(), project(tmp_path, 'dynamic = "no"\n'))


def test_batch_dimension_resolution():
    torch = pytest.importorskip("torch")
    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.cases.registry import CaseError

    image, vector = torch.rand(4, 3, 8, 8), torch.rand(3)

    def batch(inputs, **kw):
        return case("op", torch.add if len(inputs) == 2 else torch.neg, inputs, package="p", **kw).batch

    assert batch([image, vector]).dims == (0, None) and batch([image, vector]).size == 4
    assert batch([vector]).dims is None and "no input of rank 2" in batch([vector]).why
    assert batch([image, torch.rand(2, 3)]).dims is None  # disagreeing dim 0: no batch, said why
    assert "disagree" in batch([image, torch.rand(2, 3)]).why
    assert batch([image], batch=None).why == "the case opts out (batch=None)"
    assert batch([image, torch.rand(5, 3)], batch=1).dims == (1, 1) and batch([image], batch=1).size == 3
    assert batch([image, vector], batch=(0, None)).dims == (0, None)
    # a rank-1 input as long as the batch is probably per-sample: tried grown first (only by default)
    gate = batch([image, torch.ones(4)])
    assert (gate.dims, gate.per_sample) == ((0, None), (0, 0))
    assert batch([image, vector]).per_sample is None and batch([image, torch.ones(4)], batch=0).per_sample is None
    # containers: one dimension per tensor leaf, in the exporter's order; the tuple form covers a whole input
    levels = {"p3": torch.rand(2, 3, 8, 8), "p4": torch.rand(2, 3, 4, 4)}
    nested = case("op", lambda d, t: d, [levels, (torch.tensor(1.0), vector)], package="p").batch
    assert (nested.dims, nested.size) == ((0, 0, None, None), 2)
    disagree = case("op", lambda d: d, [{"a": image, "b": torch.rand(2, 3)}], package="p").batch
    assert disagree.dims is None and "in0_a 4, in0_b 2" in disagree.why
    assert case("op", lambda d, v: d, [levels, vector], package="p", batch=(1, None)).batch.dims == (1, 1, None)
    with pytest.raises(CaseError, match=r"batch\[0\]=3 is not a dimension of in0_b \(rank 2\)"):
        case("op", lambda d: d, [{"a": image, "b": torch.rand(4, 3)}], package="p", batch=(3,))
    for bad, message in [("x", r"batch must be None"), ((0,), r"lists 1 dimension\(s\) for 2 input"),
                         ((0, 1), r"batch\[1\]=1 is not a dimension of inputs\[1\] \(rank 1\)"),
                         ((0, "x"), r"batch\[1\]='x' is not a dimension"),
                         (-1, "from the front"), (True, "batch must be None")]:
        with pytest.raises(CaseError, match=message):
            batch([image, vector], batch=bad)
    with pytest.raises(CaseError, match="disagree on their size"):
        batch([image, torch.rand(2, 3)], batch=(0, 0))


def test_fingerprint_changes_with_the_batch_and_the_pass():
    torch = pytest.importorskip("torch")
    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint, reusable_keys

    x = torch.rand(2, 3)
    default, opted = (case("op", torch.neg, [x], package="p", batch=b) for b in ("auto", None))
    with_pass, without = (fingerprint(case_definition(default), "cpu", 18, "1", {}, dynamic=d) for d in (True, False))
    assert len({with_pass, without, fingerprint(case_definition(opted), "cpu", 18, "1", {})}) == 3
    assert reusable_keys(case_definition(default), "cpu", 18, "1", {}, dynamic=True) == (with_pass,)
    assert reusable_keys(case_definition(default), "cpu", 18, "1", {}, dynamic=False) == (without, with_pass)
    # a per-sample rank-1 input changes how the pass runs, so it is part of the definition; its absence
    # is not (the fingerprints of cases without one did not change when it was introduced)
    gated = case("op", torch.mul, [x, torch.ones(2)], package="p")
    assert case_definition(gated)["per_sample"] == (0, 0) and "per_sample" not in case_definition(default)


def test_onnxruntime_refusing_a_fixed_batch_reads_as_accepts_only(tmp_path):
    np = pytest.importorskip("numpy")
    onnxruntime = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    from sphinx_kexport.probe.measure.explain import explain_exception

    graph = helper.make_graph([helper.make_node("Neg", ["in0"], ["out0"])], "fixed",
                              [helper.make_tensor_value_info("in0", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("out0", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception) as caught:
        session.run(None, {"in0": np.zeros((3, 3), np.float32)})
    assert explain_exception(caught.value) == "the exported model accepts only 2 in dimension 0 of in0 (got 3)"


@pytest.mark.parametrize("line, functions, kind", [
    ("outs = [y[i] for i in range(y.shape[0])]", [], "a Python loop over it"),
    ("while n > 1:", [], "a Python branch on it"),
    ("n = int(x.shape[0])", [], "a conversion to a Python number"),
    ("return x.view(2, -1)", [], "a view or reshape of fixed size"),
    ("pad = torch.zeros(2, 3)", [], "a constant of fixed size"),
    ("", ["guard_bool", "evaluate_expr"], "a Python branch on it"),
    ("y = helper(x)", ["evaluate_expr"], "the traced code"),
])
def test_how_a_batch_was_specialised_reads_as_words(line, functions, kind):
    from sphinx_kexport.probe.measure.explain import batch_specialisation

    text = batch_specialisation(line, functions)
    assert text.startswith(f"the batch size is specialised by {kind}")
    assert (f"(`{line.rstrip(':')}`)" in text) == bool(line)


def test_schema_keeps_the_dynamic_result_optional_and_checks_its_status():
    from sphinx_kexport.snapshot import SnapshotError, validate

    result = {"status": "ok", "detail": "", "stage": "", "where": ""}
    snapshot = {"schema": 2, "generated_at": "2026-01-01T00:00:00Z", "complete": True,
                "library": {"name": "l", "version": "1", "revision": ""},
                "environments": {"cpu": {"torch": "", "onnx": "", "onnxruntime": "", "onnxscript": "",
                                         "python": "", "platform": "", "device_name": "", "opset": 18,
                                         "probed_at": ""}},
                "cases": [{"name": "op", "package": "p", "section": "", "operator": "op", "variant": "",
                           "ref": "", "origin": "hand-written", "note": "",
                           "results": {"cpu": {p: dict(result) for p in PATHS}}}]}
    validate(snapshot)  # no dynamic key: older snapshots stay valid
    paths = snapshot["cases"][0]["results"]["cpu"]
    paths["onnx"]["dynamic"] = {"status": "static", "detail": "works only at batch 2", "where": "",
                                "traced_batch": 2, "run_batch": 3}
    validate(snapshot)
    paths["onnx"]["dynamic"]["status"] = "dynamic"
    with pytest.raises(SnapshotError, match=r"case #0 \('op'\) field results.cpu.onnx.dynamic.status: "
                                            r"expected one of 'ok', 'static', 'fail', 'timeout', 'n/a'"):
        validate(snapshot)


@pytest.mark.probe
def test_docstring_discovered_cases_get_the_default_batch_dimension():
    pytest.importorskip("torch")
    tests = str(REPO / "tests" / "probe")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from sphinx_kexport.probe.cases.batch_dim import AUTO, resolve
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover
    from sphinx_kexport.probe.cases.registry import CaseError

    found = {c.name: c for c in discover("probe_cases.doclib", time_limit=2).cases}
    assert (found["scale[doc]"].batch.dims, found["scale[doc]"].batch.size) == ((0,), 2)  # x is (2, 3)
    for spec in found.values():
        assert spec.batch == resolve(AUTO, spec.inputs, spec.name, CaseError), spec.name


def test_config_reads_the_build_timeout_key_and_the_flag(tmp_path):
    """The build limit is set like the step limit: in [tool.sphinx-kexport], replaced by --build-timeout."""
    from types import SimpleNamespace

    from sphinx_kexport.probe.survey.config import DEFAULT_BUILD_TIMEOUT, ConfigError, build_config

    def args(**given):
        names = ("config", "cases", "out", "device", "library", "jobs", "timeout", "build_timeout", "opset",
                 "shard", "only", "keep_work", "fresh", "rediscover", "stats", "no_dynamic")
        return SimpleNamespace(**{n: given.get(n) for n in names})

    assert build_config(args(), project(tmp_path)).build_timeout == DEFAULT_BUILD_TIMEOUT
    assert build_config(args(), project(tmp_path, "build_timeout = 30\n")).build_timeout == 30.0
    assert build_config(args(build_timeout=5.0), project(tmp_path, "build_timeout = 30\n")).build_timeout == 5.0
    with pytest.raises(ConfigError, match=r"key build_timeout: expected seconds, a positive number.*found 'long'"):
        build_config(args(), project(tmp_path, 'build_timeout = "long"\n'))
    with pytest.raises(ConfigError, match=r"build_timeout \(--build-timeout\) must be a positive number"):
        build_config(args(), project(tmp_path, "build_timeout = 0\n"))
