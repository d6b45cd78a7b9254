"""The dynamic-batch pass across runs and crashes, as a user runs it.

The reuse rule (a run with the pass never reuses results measured without it; a run without it reuses
results that have them) on real reruns, and a worker that dies during the pass. A module of its own so
that these runs go beside test_probe_dynamic.py's shared survey, not after it.
"""

from __future__ import annotations

import json

import pytest

from batch_project import CASES, probe, project, source_line

pytest.importorskip("torch")


def test_the_pass_off_then_on_then_off_reuses_only_what_holds_the_answer(tmp_path):
    """dynamic = false measures without the pass; a run with it may not reuse that (it would lack the dynamic
    results); --no-dynamic then reuses the results that have them and drops nothing; so does the pass."""
    pytest.importorskip("onnxruntime")
    folder = project(tmp_path)
    pyproject = folder / "pyproject.toml"
    plain = pyproject.read_text()
    only = ("--jobs", "1", "--only", "batch_agnostic[batch 3]", "--stats", "stats.json")

    def run(*flags: str) -> tuple[dict, dict, str]:
        done = probe(*only, *flags, cwd=folder)
        assert done.returncode == 0, done.stdout + done.stderr
        snapshot = json.loads((folder / "support.json").read_text())
        case = {c["name"]: c for c in snapshot["cases"]}["batch_agnostic[batch 3]"]
        return json.loads((folder / "stats.json").read_text()), case, done.stdout

    pyproject.write_text(plain + "dynamic = false\n")
    stats, without, stdout = run()
    assert stats["measured"] == 1
    assert all("dynamic" not in r for r in without["results"]["cpu"].values())
    assert "dynamic batch" not in stdout

    pyproject.write_text(plain)
    stats, with_pass, stdout = run()
    assert (stats["measured"], stats["reused_snapshot"]) == (1, 0)  # not reused: it lacked the dynamic results
    assert all(r["dynamic"]["status"] == "ok" for r in with_pass["results"]["cpu"].values())
    assert with_pass["measured"]["cpu"]["fingerprint"] != without["measured"]["cpu"]["fingerprint"]
    assert "dynamic batch, torch.compile: 1 ok" in stdout

    stats, again, stdout = run("--no-dynamic")
    assert (stats["measured"], stats["reused_snapshot"]) == (0, 1)
    assert again["results"] == with_pass["results"] and again["measured"] == with_pass["measured"]

    stats, last, _ = run()
    assert (stats["measured"], stats["reused_snapshot"]) == (0, 1)
    assert last["results"] == with_pass["results"]


@pytest.mark.probe
def test_a_crash_in_the_dynamic_pass_keeps_the_static_result(tmp_path):
    pytest.importorskip("onnxruntime")
    done = probe("--cases", str(CASES / "batch_crash_cases.py"), "--library", "probe_cases", "--out", "s.json",
                 "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "s.json").read_text())["cases"][0]["results"]["cpu"]
    for path, label in (("onnx", "the ONNX export"), ("export", "torch.export"), ("compile", "torch.compile")):
        assert results[path]["status"] == "ok", path  # measured before the crash, kept
        crashed = results[path]["dynamic"]
        assert crashed["status"] == "fail" and "SIGSEGV" in crashed["detail"], path
        assert crashed["detail"].endswith(f"during the dynamic-batch pass of {label}")
        assert "ctypes.string_at(0)" in source_line(crashed["where"], "batch_crash_cases.py")
