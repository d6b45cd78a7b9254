"""The time limit (--timeout) through real probe runs on tests/probe/probe_cases/hang_cases.py: it applies to
each step on its own, a step past it is ``timeout`` (not known: neither supported nor failing) with the line it
was running, or the tool that was still working when no line of the library was, and a run with a larger limit
measures a timed-out case again without --fresh."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "probe" / "probe_cases"


def probe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The probe command, run by this process (probe_cli.py); the workers it times out are real processes."""
    return probe_cli(*args, cwd=cwd, env=dict(os.environ, PYTHONPATH=str(REPO)))


def by_name(snapshot: dict) -> dict:
    return {c["name"]: c for c in snapshot["cases"]}


def snapshot_after(limit: int, out: Path, *only: str) -> tuple[dict, str]:
    """Run the probe on hang_cases.py with ``--timeout limit``; (results of the measured cases, stdout)."""
    done = probe("--cases", str(CASES / "hang_cases.py"), "--out", str(out), "--library", "probe_cases",
                 "--timeout", str(limit), "--jobs", "1", "--no-dynamic", *(a for o in only for a in ("--only", o)),
                 cwd=out.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = json.loads(out.read_text())
    return {name: case["results"]["cpu"] for name, case in by_name(snapshot).items() if case["results"]}, done.stdout


def test_a_hang_times_out_every_path_and_a_larger_limit_measures_it_again(tmp_path):
    out = tmp_path / "hang.json"
    first, _ = snapshot_after(4, out, "wait_forever")
    hung = first["wait_forever"]
    for path in ("onnx", "export", "compile"):  # it hung in the eager run, before any path: every path
        assert (hung[path]["status"], hung[path]["stage"]) == ("timeout", "process")
        assert hung[path]["detail"] == "ran past the time limit of 4 s during the eager reference"
        assert hung[path]["time_limit"] == 4
        assert hung[path]["where"].startswith("probe_cases/hang_cases.py:")  # the stack dumped before the kill
    snapshot = json.loads(out.read_text())
    assert snapshot["complete"] is False  # --only: the rest was not measured
    assert snapshot["missing"] == ["quick", "slow_under_dynamo", "five_seconds_each", "lowering_forever"]

    again, stdout = snapshot_after(4, out, "wait_forever")  # the same limit: the timeout is the answer
    assert again == first and "measured 0, reused 1" in stdout
    larger, stdout = snapshot_after(5, out, "wait_forever")  # a larger limit measures it again, no --fresh
    assert "measured 1, reused 0" in stdout
    assert larger["wait_forever"]["compile"]["time_limit"] == 5


def test_one_path_past_the_limit_is_a_timeout_and_each_step_has_the_whole_limit(tmp_path):
    found, _ = snapshot_after(18, tmp_path / "slow.json", "slow_under_dynamo", "five_seconds_each")
    slow = found["slow_under_dynamo"]
    assert slow["onnx"]["status"] == "ok" and slow["export"]["status"] == "ok"
    assert (slow["compile"]["status"], slow["compile"]["stage"]) == ("timeout", "process")
    assert slow["compile"]["detail"] == "ran past the time limit of 18 s during torch.compile"
    assert slow["compile"]["where"].startswith("probe_cases/hang_cases.py:")  # the sleep it was in
    # four 5 s sleeps (eager, ONNX, torch.export, torch.compile): more than 18 s for the case, under it a step
    steady = found["five_seconds_each"]
    assert [steady[p]["status"] for p in ("onnx", "export", "compile")] == ["ok", "ok", "ok-breaks"]


def test_a_compile_past_the_limit_says_inductor_was_still_compiling_it(tmp_path):
    # no library frame is on the stack while inductor lowers a graph: the stack dump's innermost tool says it
    # 20 s: the ONNX and torch.export steps before it must fit too, on a machine the whole suite keeps busy
    found, _ = snapshot_after(20, tmp_path / "lowering.json", "lowering_forever")
    stuck = found["lowering_forever"]
    assert stuck["onnx"]["status"] == "ok" and stuck["export"]["status"] == "ok"
    assert (stuck["compile"]["status"], stuck["compile"]["stage"]) == ("timeout", "process")
    assert stuck["compile"]["detail"] == ("ran past the time limit of 20 s during torch.compile; inductor was still "
                                          "turning the captured graph into code (dynamo had captured it)")
    assert stuck["compile"]["where"] == ""  # no line of the library was running


def test_stop_after_writes_what_is_finished_and_the_next_run_measures_the_rest(tmp_path):
    # wait_forever holds one worker past the run's end, quick is done in seconds on the other: --stop-after
    # stops the first (not waiting for its 300 s step limit) and the snapshot keeps the second
    out = tmp_path / "stopped.json"
    args = ("--cases", str(CASES / "hang_cases.py"), "--out", str(out), "--library", "probe_cases", "--jobs", "2",
            "--no-dynamic", "--only", "wait_forever", "--only", "quick")
    done = probe(*args, "--stop-after", "0m40s", cwd=tmp_path)  # added up, as a CI job may write it
    assert done.returncode == 5, done.stdout + done.stderr
    assert "--stop-after ended the run with 1 case(s) not measured" in done.stderr
    assert "--stop-after 40 s: measuring stopped with 1 case(s) left on cpu" in done.stdout
    # the hung case was stopped, not waited for: waited for, it would end at its step limit and count as measured
    assert "measured 1, reused 0" in done.stdout
    snapshot = json.loads(out.read_text())
    cases = by_name(snapshot)
    assert snapshot["complete"] is False and "wait_forever" in snapshot["missing"]
    assert cases["wait_forever"]["results"] == {}
    assert cases["quick"]["results"]["cpu"]["compile"]["status"] == "ok"

    again = probe(*args, "--timeout", "4", cwd=tmp_path)  # the same cases, now with a short step limit
    assert again.returncode == 0, again.stdout + again.stderr
    assert "measured 1, reused 1" in again.stdout  # only what the stop left
    results = by_name(json.loads(out.read_text()))
    assert results["wait_forever"]["results"]["cpu"]["onnx"]["status"] == "timeout"
    assert results["quick"]["results"] == cases["quick"]["results"]


def test_stop_after_reads_seconds_minutes_and_hours_and_names_a_bad_value():
    from sphinx_kexport.probe.survey.config import ConfigError, parse_duration

    assert [parse_duration(text) for text in ("90", "90s", "25m", "1.5h", "2h05m", "1h 30m 10", "1m30s")] == [
        90, 90, 1500, 5400, 7500, 5410, 90]
    for bad in ("", "0", "ten", "5d", "-3m", "0h0m", "30m2h", "5m5m", "2 30m", "1h-5m"):
        with pytest.raises(ConfigError, match=rf"--stop-after '{bad}': expected a positive duration"):
            parse_duration(bad)


def test_stop_after_before_the_cases_are_known_writes_nothing_and_says_so(tmp_path):
    module = tmp_path / "slow_import_cases.py"
    module.write_text("import time\n\nimport torch\n\nfrom sphinx_kexport.probe import case\n\n"
                      "time.sleep(300)  # as long discovery would take\n"
                      "CASES = [case('add_one', lambda x: x + 1, [torch.rand(2)], package='slow')]\n",
                      encoding="utf-8")
    out = tmp_path / "never.json"
    began = time.monotonic()
    done = probe("--cases", str(module), "--out", str(out), "--library", "torch", "--stop-after", "5",
                 "--no-dynamic", cwd=tmp_path)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "--stop-after 5 s came before the case modules were all described" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    # the import was stopped, not waited for: its sleep alone is 300 s (a bound the fixture sets, not a speed)
    assert time.monotonic() - began < 300
