"""The snapshot is the cache: a rerun measures only what changed (real probe runs on tiny cases).

The cases (tests/probe/probe_cases/reuse_cases.py) log every call, so a test sees
which cases a run really measured, next to what the run's --stats says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "reuse_cases.py"


def probe(where: Path, *flags: str, extra: bool = False) -> dict:
    """Run the real probe; return its stats, stdout, the names its cases logged and the snapshot."""
    log, stats = where / "calls.log", where / "stats.json"
    log.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_CALL_LOG=str(log),
               KEXPORT_EXTRA_CASE="1" if extra else "0")
    done = probe_cli("--cases", str(CASE_FILE), "--library", "probe_cases", "--out", str(where / "support.json"),
                     "--jobs", "1", "--no-dynamic", "--stats", str(stats), *flags, cwd=where, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"stats": json.loads(stats.read_text()), "stdout": done.stdout,
            "calls": set(log.read_text().split()) if log.exists() else set(),
            "snapshot": json.loads((where / "support.json").read_text()),
            "bytes": (where / "support.json").read_bytes()}


def stamps(snapshot: dict) -> dict:
    return {c["name"]: c.get("measured", {}).get("cpu") for c in snapshot["cases"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Four real runs, each with what it measured; what a plain --fresh or another torch measures is the plan's
    decision and proven in-process (tests/probe/survey/test_survey_stages.py)."""
    where = tmp_path_factory.mktemp("reuse")
    first = probe(where)
    rerun = probe(where)
    added = probe(where, extra=True)
    fresh_only = probe(where, "--fresh", "--only", "halved", extra=True)
    return {"first": first, "rerun": rerun, "added": added, "fresh_only": fresh_only}


def test_first_run_measures_everything_and_stamps_each_case(runs):
    first = runs["first"]
    assert first["stats"]["measured"] == 2 and first["stats"]["skipped"] == 1
    assert first["calls"] == {"doubled", "halved"}
    stamped = stamps(first["snapshot"])
    assert set(stamped) == {"doubled", "halved", "skipped"}
    for stamp in stamped.values():
        assert len(stamp["fingerprint"]) == 64 and stamp["measured_at"].endswith("Z")


def test_rerun_with_nothing_changed_measures_nothing(runs):
    first, rerun = runs["first"], runs["rerun"]
    assert rerun["stats"]["measured"] == 0 and rerun["stats"]["reused_snapshot"] == 2
    assert rerun["calls"] == set()
    assert "reusing: 2 results from support.json" in rerun["stdout"]
    assert "measured 0, reused 2" in rerun["stdout"]
    # reused results keep the time they were measured, and the results themselves
    assert stamps(rerun["snapshot"])["doubled"] == stamps(first["snapshot"])["doubled"]
    assert [c["results"] for c in rerun["snapshot"]["cases"]] == [c["results"] for c in first["snapshot"]["cases"]]
    # and the committed file is left byte for byte (no diff of the skip entry's or the environment's times)
    assert rerun["bytes"] == first["bytes"]
    assert "nothing was measured and nothing changed: left" in rerun["stdout"] and "\nwrote " not in rerun["stdout"]


def test_adding_one_case_measures_that_case_only(runs):
    added = runs["added"]
    assert added["stats"]["measured"] == 1 and added["stats"]["reused_snapshot"] == 2
    assert added["calls"] == {"added"}
    assert [c["name"] for c in added["snapshot"]["cases"]] == ["doubled", "halved", "skipped", "added"]
    assert "\nwrote " in added["stdout"]


def test_fresh_with_only_measures_only_the_selected_case_and_keeps_the_others(runs):
    fresh, fresh_only = runs["added"], runs["fresh_only"]
    assert fresh_only["calls"] == {"halved"}
    assert fresh_only["stats"]["measured"] == 1
    before, after = stamps(fresh["snapshot"]), stamps(fresh_only["snapshot"])
    assert after["halved"]["measured_at"] >= before["halved"]["measured_at"]
    assert after["doubled"] == before["doubled"] and after["added"] == before["added"]
    assert [c["name"] for c in fresh_only["snapshot"]["cases"]] == [c["name"] for c in fresh["snapshot"]["cases"]]


def test_a_compile_record_from_before_the_fullgraph_rule_is_measured_again(tmp_path):
    # an older probe judged torch.compile by the default compile: its ok-breaks may be ok now (issue 60); its ok
    # reads the same under both rules and is reused
    snapshot = probe(tmp_path)["snapshot"]
    for entry in snapshot["cases"]:  # the calls' log (open()) breaks the graph: written as an older probe would
        compiled = entry["results"]["cpu"]["compile"]
        for name in ("fullgraph", "graphs", "breaks_removed_by", "break_reasons", "where_code"):
            compiled.pop(name, None)
        if entry["name"] == "doubled":
            compiled.update(status="ok-breaks", detail="1 graph break: dynamo records no reason", graph_breaks=1)
        elif entry["name"] == "halved":
            compiled.update(status="ok", detail="", where="", graph_breaks=0)
    (tmp_path / "support.json").write_text(json.dumps(snapshot), encoding="utf-8")
    dry = probe_cli("--cases", str(CASE_FILE), "--library", "probe_cases", "--out", str(tmp_path / "support.json"),
                    "--jobs", "1", "--no-dynamic", "--dry-run", "--stats", str(tmp_path / "dry.json"), cwd=tmp_path,
                    env=dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_EXTRA_CASE="0"))
    assert ("doubled [cpu]: its torch.compile record predates the fullgraph=True rule" in dry.stdout
            and "would measure 1 of 3" in dry.stdout), dry.stdout + dry.stderr
    # the same as data: the estimate is what measuring that case took the last time
    took = {c["name"]: c for c in snapshot["cases"]}["doubled"]["measured"]["cpu"]["seconds"]
    assert json.loads((tmp_path / "dry.json").read_text()) == {
        "dry_run": True, "would_measure": ["doubled [cpu]"], "measured_before": 1, "estimated_worker_seconds": took}
    again = probe(tmp_path)
    assert again["calls"] == {"doubled"} and again["stats"]["measured"] == 1
    cases = {c["name"]: c for c in again["snapshot"]["cases"]}
    assert cases["doubled"]["results"]["cpu"]["compile"]["fullgraph"] is False  # measured by this probe
    assert "fullgraph" not in cases["halved"]["results"]["cpu"]["compile"]  # reused: ok under both rules


def test_a_case_measured_again_without_speed_keeps_its_speed_figures(tmp_path):
    # issue 61: the kornia example was measured with --speed; a gate's rerun without it dropped the figures of
    # every case it measured again
    timed = probe(tmp_path, "--speed")["snapshot"]
    assert "speed" in {c["name"]: c for c in timed["cases"]}["halved"]["results"]["cpu"]["onnx"]
    again = probe(tmp_path, "--fresh", "--only", "halved")
    assert again["calls"] == {"halved"} and again["stats"]["measured"] == 1
    results = {c["name"]: c for c in again["snapshot"]["cases"]}["halved"]["results"]["cpu"]
    assert all("speed" in results[path] for path in ("onnx", "export", "compile"))
    assert "holds speed figures: the cases measured again are timed" in again["stdout"]
