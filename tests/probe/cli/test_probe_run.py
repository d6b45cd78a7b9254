"""The probe as a user runs it: `python -m sphinx_kexport.probe` on real torch functions.

One run of tests/probe/probe_cases/basic_cases.py (shared by the tests of this
module) must reach every status and the stages torch 2.13 lets a real
function reach; the assertions read the snapshot the command wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

from sphinx_kexport.snapshot import STAGES

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "probe" / "probe_cases"


def python_m(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    """``python -m sphinx_kexport.probe ARGS`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", *args], cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=timeout)


def probe(*args: str, cwd: Path, env: dict | None = None, **_) -> subprocess.CompletedProcess:
    """The same command run by this process (tests/probe/probe_cli.py): its children fork from one warm server."""
    return probe_cli(*args, cwd=cwd, env=dict(os.environ, PYTHONPATH=str(REPO), **(env or {})))


def by_name(snapshot: dict) -> dict:
    return {c["name"]: c for c in snapshot["cases"]}


@pytest.fixture(scope="module")
def basic(tmp_path_factory):
    """One real survey of basic_cases.py, configured through a pyproject.toml table."""
    project = tmp_path_factory.mktemp("project")
    (project / "pyproject.toml").write_text(
        "[tool.sphinx-kexport]\n"
        f"cases = [{json.dumps(str(CASES / 'basic_cases.py'))}]\n"
        'out = "docs/_data/support.json"\n'
        'devices = ["cpu"]\n'
        'library = "probe_cases"\n'
        'dynamic = false\n', encoding="utf-8")  # nothing here reads the dynamic-batch pass (test_probe_dynamic.py)
    done = probe("--jobs", "2", cwd=project)
    out = project / "docs" / "_data" / "support.json"
    return {"project": project, "run": done, "out": out,
            "snapshot": json.loads(out.read_text()) if out.exists() else None}


def cpu(snapshot: dict, name: str, path: str) -> dict:
    return by_name(snapshot)[name]["results"]["cpu"][path]


def test_survey_runs_and_writes_a_valid_deterministic_snapshot(basic):
    from sphinx_kexport.snapshot import dumps, load_snapshot

    # 4: the survey ran, but wrong_shapes does not run eagerly (listed at the end); count_bright_pixels ran
    assert basic["run"].returncode == 4, basic["run"].stderr
    assert "1 case failed eagerly" in basic["run"].stderr and "count_bright_pixels" not in basic["run"].stderr
    text = basic["out"].read_text()
    assert text == dumps(basic["snapshot"])  # sorted keys, indent 2, trailing newline
    load_snapshot(basic["out"])  # validates against the schema
    snap = basic["snapshot"]
    assert snap["complete"] is True and "missing" not in snap
    assert [c["name"] for c in snap["cases"]][:3] == ["plain_ok", "scale.inverse[module]", "clamp[kwargs]"]
    assert not (basic["out"].parent / ".kexport-work").exists()  # the journal goes once the snapshot is written
    assert "torch.compile" in basic["run"].stdout and "wrote" in basic["run"].stdout  # the summary table


def test_header_describes_the_probing_environment(basic):
    import onnxruntime
    import torch

    snap = basic["snapshot"]
    env = snap["environments"]["cpu"]
    assert env["torch"] == torch.__version__ and env["onnxruntime"] == onnxruntime.__version__
    assert env["opset"] == 18 and env["cuda"] is None and env["driver"] is None
    assert env["device_name"] and env["platform"] and env["probed_at"].endswith("Z")
    assert snap["library"]["name"] == "probe_cases" and snap["library"]["version"] == "0.0.1"


def test_supported_paths(basic):
    snap = basic["snapshot"]
    for name in ("plain_ok", "scale.inverse[module]", "clamp[kwargs]"):
        for path in ("onnx", "export", "compile"):
            assert cpu(snap, name, path)["status"] == "ok", (name, path)
    assert cpu(snap, "plain_ok", "onnx")["provider"] == "CPUExecutionProvider"
    assert cpu(snap, "plain_ok", "compile")["graph_breaks"] == 0


def test_graph_breaks_are_counted_with_readable_reasons(basic):
    # fullgraph=True compiles both (a .item() symbol, a data-dependent shape: checked with a plain script on
    # torch 2.13), so they are ok; the default compile's breaks stay as a fact, with the flag that removes them
    snap = basic["snapshot"]
    item = cpu(snap, "item_readback", "compile")
    assert (item["status"], item["fullgraph"], item["where"]) == ("ok", True, "") and item["graph_breaks"] >= 1
    assert any(".item()" in r for r in item["break_reasons"])
    assert item["breaks_removed_by"] == ["capture_scalar_outputs"]
    shape = cpu(snap, "value_dependent_shape", "compile")
    assert (shape["status"], shape["fullgraph"]) == ("ok", True) and shape["graph_breaks"] >= 1
    assert any("output shape depends on tensor values" in r for r in shape["break_reasons"])
    assert shape["breaks_removed_by"] == ["capture_dynamic_output_shape_ops"]
    for reason in item["break_reasons"] + shape["break_reasons"]:
        assert "\n" not in reason and len(reason) <= 160


def test_data_dependent_branch_fails_capture_where_it_branches(basic):
    snap = basic["snapshot"]
    source = (CASES / "basic_cases.py").read_text().splitlines()
    for path in ("onnx", "export"):
        result = cpu(snap, "data_dependent_branch", path)
        assert result["status"] == "fail" and result["stage"] == "capture"
        assert "branch" in result["detail"] and "tensor values" in result["detail"]
        file, line = result["where"].split(":")
        assert file == "probe_cases/basic_cases.py"
        assert "if x.sum() > 0" in source[int(line) - 1]
    assert cpu(snap, "data_dependent_branch", "compile")["status"] == "ok-breaks"


def test_missing_lowering_names_the_torch_function(basic):
    result = cpu(basic["snapshot"], "singular_values", "onnx")
    assert result["status"] == "fail" and result["stage"] == "translate"
    assert result["detail"] == "no ONNX lowering for torch.linalg.svd"
    assert cpu(basic["snapshot"], "singular_values", "export")["status"] == "ok"


def test_mismatch_records_the_largest_difference(basic):
    result = cpu(basic["snapshot"], "argmax_with_nan", "onnx")
    assert result["status"] == "mismatch" and result["stage"] == "compare"
    assert result["max_abs_diff"] > 1
    assert "differs from eager" in result["detail"]
    assert cpu(basic["snapshot"], "argmax_with_nan", "export")["status"] == "ok"


def test_onnxruntime_load_failure(basic):
    result = cpu(basic["snapshot"], "erf_float64", "onnx")
    assert result["status"] == "fail" and result["stage"] == "load"
    assert "Erf" in result["detail"] and "onnxruntime" in result["detail"]


def test_onnx_checker_rejection(basic):
    result = cpu(basic["snapshot"], "pool_ceil_mode", "onnx")
    assert (result["status"], result["stage"]) == ("fail", "check")
    assert result["detail"] == ("onnx.checker rejects the exported graph: ONNX shape inference disagrees with "
                                "torch on the output shape of MaxPool (dimension 2: ONNX 4, torch 3)")
    assert cpu(basic["snapshot"], "pool_ceil_mode", "export")["status"] == "ok"


def test_onnxruntime_run_failure(basic):
    result = cpu(basic["snapshot"], "row_of_broadcast", "onnx")
    assert (result["status"], result["stage"]) == ("fail", "run")
    assert result["provider"] == "CPUExecutionProvider"
    assert result["detail"].startswith("onnxruntime cannot run the exported graph: cannot allocate")
    assert "ONNX Expand materialises a broadcast" in result["detail"]
    for path in ("export", "compile"):  # torch keeps the view
        assert cpu(basic["snapshot"], "row_of_broadcast", path)["status"] == "ok"


def test_every_status_and_stage_is_reached(basic):
    seen = {(r["status"], r["stage"]) for c in basic["snapshot"]["cases"] for r in c["results"]["cpu"].values()}
    statuses = {status for status, _ in seen}
    stages = {stage for _, stage in seen}
    assert statuses == {"ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "n/a"}
    # every stage the format names (skip for skip= entries, no-tensor for a call that returns none)
    assert stages - {""} == set(STAGES) - {""}


def test_random_operators_are_unverified_and_say_so(basic):
    snap = basic["snapshot"]
    assert by_name(snap)["add_noise[random]"]["check"] is False
    for path in ("onnx", "export"):  # they draw otherwise than eager: count, rank, dtype and finiteness
        result = cpu(snap, "add_noise[random]", path)
        assert result["status"] == "ok-unverified"
        assert result["detail"] == ""  # the status says it; the page's legend explains it once
    # torch.compile draws as eager does (inductor's fallback_random): compared in full
    assert cpu(snap, "add_noise[random]", "compile")["status"] == "ok"
    generator = cpu(snap, "seeded_noise[random]", "onnx")
    assert generator["status"] == "fail" and "torch.Generator" in generator["detail"]


def test_skip_and_eager_failure_are_not_applicable(basic):
    snap = basic["snapshot"]
    for path in ("onnx", "export", "compile"):
        skipped = cpu(snap, "needs_weights", path)
        assert (skipped["status"], skipped["stage"]) == ("n/a", "skip")
        assert skipped["detail"] == "needs pretrained weights (not downloaded)"
        eager = cpu(snap, "wrong_shapes", path)
        assert (eager["status"], eager["stage"]) == ("n/a", "eager")
        assert "cannot be multiplied" in eager["detail"] and "Traceback" not in eager["detail"]
        assert eager["where"].startswith("probe_cases/basic_cases.py:")
    # a Python int: onnxruntime returns it as a 0-d output; torch.export cannot return an int read from the data
    assert cpu(snap, "count_bright_pixels", "onnx")["status"] == "ok"
    no_tensor = cpu(snap, "count_bright_pixels", "export")
    assert (no_tensor["status"], no_tensor["stage"]) == ("n/a", "no-tensor")  # format 2 says it as a field
    assert no_tensor["detail"].startswith("not probed: returns no tensor")


def test_a_crash_costs_the_case_not_the_survey(basic):
    snap = basic["snapshot"]
    for path in ("onnx", "export", "compile"):
        crashed = cpu(snap, "read_null_pointer", path)
        assert (crashed["status"], crashed["stage"]) == ("fail", "process")
        assert "SIGSEGV" in crashed["detail"]
        assert crashed["where"].startswith("probe_cases/basic_cases.py:")  # from the faulthandler dump
    # a crash inside one path keeps the paths measured before it
    assert cpu(snap, "abort_under_dynamo", "onnx")["status"] == "ok"
    assert cpu(snap, "abort_under_dynamo", "export")["status"] == "ok"
    aborted = cpu(snap, "abort_under_dynamo", "compile")
    assert (aborted["status"], aborted["stage"]) == ("fail", "process") and "SIGABRT" in aborted["detail"]
    # and the cases after the crash were measured by a fresh worker
    assert cpu(snap, "plain_ok", "compile")["status"] == "ok"


def test_case_metadata_and_repro_source(basic):
    case = by_name(basic["snapshot"])
    plain = case["plain_ok"]
    assert plain["package"] == "probe_cases.basic" and plain["section"] == "basic"
    assert plain["ref"] == "probe_cases.basic_cases.plain_ok"
    assert plain["inputs"] == [{"shape": [2, 3, 4, 4], "dtype": "float32"}]
    module = case["scale.inverse[module]"]
    assert (module["operator"], module["variant"]) == ("scale.inverse", "module")
    clamp = case["clamp[kwargs]"]
    assert clamp["ref"] == "torch.clamp"
    namespace: dict = {}
    exec(clamp["call"], namespace)  # the repro source runs and calls the registered function
    import torch

    inputs = namespace["inputs"]
    assert torch.equal(namespace["fn"](*inputs), torch.clamp(inputs[0], min=0.2, max=0.8))
    assert "kornia" not in clamp["call"] and "min=0.2" in clamp["call"]
    # a module built with arguments: rebuilt from the case's own expression, not a bare Scale()
    assert "target = Scale(2.0)\nfn = target.inverse\n" in module["call"] and "Scale()" not in module["call"]


def test_diff_reports_regressions_with_exit_status(basic, tmp_path):
    old = basic["out"]
    regressed = json.loads(old.read_text())
    target = by_name(regressed)["plain_ok"]["results"]["cpu"]["onnx"]
    target.update(status="fail", stage="translate", detail="no ONNX lowering for torch.sigmoid")
    new = tmp_path / "new.json"
    new.write_text(json.dumps(regressed))
    worse = python_m("diff", str(old), str(new), cwd=tmp_path)
    assert worse.returncode == 1
    assert "regressed (1)" in worse.stdout and "plain_ok [cpu] ONNX: ok -> fail" in worse.stdout
    better = python_m("diff", str(new), str(old), cwd=tmp_path)
    assert better.returncode == 0 and "fixed (1)" in better.stdout
    same = python_m("diff", str(old), str(old), cwd=tmp_path)
    assert same.returncode == 0 and "no differences" in same.stdout
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert python_m("diff", str(old), str(broken), cwd=tmp_path).returncode == 2


def test_probing_one_device_keeps_the_other(basic, tmp_path):
    # a snapshot that also holds cuda results (as a GPU runner would have written them)
    with_cuda = json.loads(basic["out"].read_text())
    with_cuda["environments"]["cuda"] = dict(with_cuda["environments"]["cpu"], device_name="A GPU", cuda="12.8")
    for case in with_cuda["cases"]:
        case["results"]["cuda"] = case["results"]["cpu"]
    out = tmp_path / "support.json"
    out.write_text(json.dumps(with_cuda))
    done = probe("--cases", str(CASES / "basic_cases.py"), "--out", str(out), "--library", "probe_cases",
                 "--only", "plain_ok", "--jobs", "1", "--no-dynamic", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    snap = json.loads(out.read_text())
    assert snap["environments"]["cuda"]["device_name"] == "A GPU"
    assert by_name(snap)["argmax_with_nan"]["results"]["cuda"]["onnx"]["status"] == "mismatch"
    assert by_name(snap)["argmax_with_nan"]["results"]["cpu"]["onnx"]["status"] == "mismatch"  # carried over
    assert snap["complete"] is True and "selection" not in snap  # the others kept their results: nothing left out
    assert f"probing 1 of {len(snap['cases'])} cases" in done.stdout


def test_cuda_without_cuda_is_refused_before_anything_is_written(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    out = tmp_path / "out.json"
    done = probe("--cases", str(CASES / "basic_cases.py"), "--out", str(out), "--device", "cuda", cwd=tmp_path)
    assert done.returncode == 2
    assert "no usable CUDA device" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


BAD_MODULES = {
    "dup_a.py": 'CASES = [case("twice", torch.sin, [torch.rand(2)], package="p")]',
    "dup_b.py": 'CASES = [case("twice", torch.cos, [torch.rand(2)], package="p")]',
    "not_tensor.py": 'CASES = [case("scalar_input", torch.sin, [torch.rand(2), 3.0], package="p")]',
    "not_callable.py": 'CASES = [case("number_target", 42, [torch.rand(2)], package="p")]',
}


@pytest.mark.parametrize("files, expected", [
    (["dup_a.py", "dup_b.py"], ["'twice'", "dup_a.py", "dup_b.py", "unique"]),
    (["not_tensor.py"], ["not_tensor.py", "'scalar_input'", "inputs[1]", "kwargs"]),
    (["not_callable.py"], ["not_callable.py", "'number_target'", "cannot be called"]),
])
def test_user_mistakes_stop_before_anything_runs(tmp_path, files, expected):
    args = []
    for name in files:
        (tmp_path / name).write_text("import torch\nfrom sphinx_kexport.probe import case\n" + BAD_MODULES[name])
        args += ["--cases", name]
    done = probe(*args, "--out", "out.json", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    for fragment in expected:
        assert fragment in done.stderr
    assert not (tmp_path / "out.json").exists() and not (tmp_path / ".kexport-work").exists()


def test_a_broken_case_module_stops_the_run_without_waiting_for_a_slow_one(tmp_path):
    """The inventory's children build modules side by side: a mistake in one kills the other at once."""

    (tmp_path / "a_slow.py").write_text("import time\nimport torch\nfrom sphinx_kexport.probe import case\n"
                                        "time.sleep(120)\nCASES = [case('slow', torch.sin, [torch.rand(2)], package='p')]\n")
    (tmp_path / "b_broken.py").write_text("import torch\nraise ValueError('a typo in the case module')\n")
    # the slow module sleeps 120 s: a run that waited for it would pass the call's 110 s limit and fail here
    done = probe("--cases", "a_slow.py", "--cases", "b_broken.py", "--out", "out.json", "--jobs", "2", cwd=tmp_path,
                 timeout=110)
    assert done.returncode == 2
    assert "b_broken.py" in done.stderr and "a typo in the case module" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out.json").exists()


def test_no_configuration_is_explained(tmp_path):
    done = python_m(cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "[tool.sphinx-kexport]" in done.stderr and "Traceback" not in done.stderr
