"""Resume after kill -9, and shards merged back into one snapshot.

The cases (tests/probe/probe_cases/resume_cases.py) append their name to a call log
on every call, so the tests see which cases a run really measured. The runs that are
killed or stopped are real processes; the others (the reruns after them, the shards)
run in this process (probe_cli.py), as the same command would, forking their workers
from one warm server instead of each importing torch again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from polling import wait_until
from probe_cli import probe_cli
from processes import holding

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "resume_cases.py"
NAMES = ["scaled", "shifted", "squared", "clipped", "mixed", "branchy"]


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "sphinx_kexport.probe", "--cases", str(CASE_FILE), "--library", "probe_cases",
            "--no-dynamic", *args]


def environment(call_log: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_CALL_LOG=str(call_log))


def running(process: subprocess.Popen) -> bool:
    assert process.poll() is None, "the first run ended before the test could stop it"
    return True


def run_here(args: list[str], cwd: Path, call_log: Path) -> subprocess.CompletedProcess:
    """``command(...)``'s run, by this process (probe_cli.py)."""
    assert args[:3] == [sys.executable, "-m", "sphinx_kexport.probe"]
    return probe_cli(*args[3:], cwd=cwd, env=environment(call_log))


def statuses(snapshot: dict) -> dict:
    return {(c["name"], d, p): r["status"] for c in snapshot["cases"] for d, paths in c["results"].items()
            for p, r in paths.items()}


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """Start a survey, kill -9 it after two cases, rerun the same command."""
    where = tmp_path_factory.mktemp("resume")
    out, log = where / "support.json", where / "calls.log"
    records = where / ".kexport-work" / "support.json" / "records" / "cpu"
    args = command("--out", str(out), "--jobs", "1", "--keep-work")
    first = subprocess.Popen(args, cwd=where, env=environment(log), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    wait_until(lambda: running(first) and records.is_dir() and len(list(records.glob("*.json"))) >= 2,
               what="the first run to finish two cases", timeout=180)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    # workers die with their parent (PR_SET_PDEATHSIG): wait until none of this run's processes is left, so
    # nothing kept running after the kill (the fixture fails otherwise) and the call log below is final
    wait_until(lambda: not holding("KEXPORT_CALL_LOG", str(log)), what="the killed run's workers to end")
    finished_before = {json.loads(p.read_text())["name"]: p.stat().st_mtime_ns for p in records.glob("*.json")}
    calls_before = log.read_text().split() if log.exists() else []
    second = run_here(args, where, log)
    calls = log.read_text().split()
    unsharded = where / "unsharded.json"  # kept aside: a later test rewrites `out`
    if out.exists():
        unsharded.write_text(out.read_text())
    return {"out": out, "unsharded": unsharded, "records": records, "finished_before": finished_before,
            "second": second, "rerun_calls": calls[len(calls_before):]}


def test_kill_then_rerun_finishes_without_repeating_finished_cases(resumed):
    second = resumed["second"]
    assert second.returncode == 0, second.stderr
    assert "resuming: " in second.stdout
    finished = resumed["finished_before"]
    assert 2 <= len(finished) < len(NAMES)
    rerun = set(resumed["rerun_calls"])
    assert rerun.isdisjoint(finished), f"re-ran finished cases: {rerun & set(finished)}"
    assert rerun == set(NAMES) - set(finished)
    for path in resumed["records"].glob("*.json"):  # finished records were reused, not rewritten
        name = json.loads(path.read_text())["name"]
        if name in finished:
            assert path.stat().st_mtime_ns == finished[name]
    snap = json.loads(resumed["out"].read_text())
    assert snap["complete"] is True and [c["name"] for c in snap["cases"]] == NAMES
    assert statuses(snap)[("scaled", "cpu", "onnx")] == "ok"
    assert statuses(snap)[("branchy", "cpu", "export")] == "fail"


@pytest.fixture(scope="module")
def shards(resumed, tmp_path_factory):
    where = tmp_path_factory.mktemp("shards")
    log = where / "calls.log"
    runs = [run_here(command("--out", str(where / f"part-{k}.json"), "--shard", f"{k}/2", "--jobs", "1"), where, log)
            for k in (1, 2)]
    outputs = [(run.stdout, run.stderr) for run in runs]
    return {"where": where, "codes": [r.returncode for r in runs], "outputs": outputs,
            "parts": [where / f"part-{k}.json" for k in (1, 2)]}


def merge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "merge", *args], cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=60)


def test_shards_split_the_cases_and_merge_to_the_unsharded_result(shards, resumed):
    assert shards["codes"] == [0, 0], shards["outputs"]
    parts = [json.loads(p.read_text()) for p in shards["parts"]]
    measured = [{c["name"] for c in part["cases"] if c["results"]} for part in parts]
    assert measured[0].isdisjoint(measured[1]) and measured[0] | measured[1] == set(NAMES)
    assert all(part["complete"] is False for part in parts)
    for (stdout, _), k, mine in zip(shards["outputs"], (1, 2), measured):
        assert (f"the part of shard {k}/2: {len(mine)} with results, {len(NAMES) - len(mine)} left to the other "
                f"parts; `python -m sphinx_kexport.probe merge OUT PART...` joins them") in stdout, stdout
    merged = shards["where"] / "merged.json"
    done = merge(str(merged), *map(str, shards["parts"]), cwd=shards["where"])
    assert done.returncode == 0, done.stderr
    snap = json.loads(merged.read_text())
    assert snap["complete"] is True and [c["name"] for c in snap["cases"]] == NAMES
    assert statuses(snap) == statuses(json.loads(resumed["unsharded"].read_text()))


def test_diff_leaves_out_what_a_shard_part_did_not_measure(shards, resumed, capsys):
    """A part lists the whole inventory; the cases outside its shard were not probed, which is no change."""
    from sphinx_kexport.probe.cli.main import main

    assert shards["codes"] == [0, 0], shards["outputs"]
    part = shards["parts"][0]
    outside = [c["name"] for c in json.loads(part.read_text())["cases"] if not c["results"]]
    assert outside
    assert main(["diff", str(resumed["unsharded"]), str(part)]) == 0
    said = capsys.readouterr().out
    assert "absent" not in said and said.splitlines()[0] == "no differences", said
    assert f"not compared: {len(outside)} case(s) that {part} lists but did not measure" in said
    # a complete snapshot's missing case is still a change
    fewer = json.loads(resumed["unsharded"].read_text())
    gone = fewer["cases"].pop()["name"]
    smaller = part.parent / "fewer.json"
    smaller.write_text(json.dumps(fewer))
    assert main(["diff", str(resumed["unsharded"]), str(smaller)]) == 0
    said = capsys.readouterr().out
    assert f"{gone} [cpu] ONNX: " in said and " -> absent" in said and "not compared" not in said


def test_merge_refuses_gaps_unless_told(shards):
    where = shards["where"]
    gap = merge(str(where / "gap.json"), str(shards["parts"][0]), cwd=where)
    assert gap.returncode == 1
    assert "--allow-incomplete" in gap.stderr and "Traceback" not in gap.stderr
    assert not (where / "gap.json").exists()
    forced = merge(str(where / "gap.json"), str(shards["parts"][0]), "--allow-incomplete", cwd=where)
    assert forced.returncode == 0, forced.stderr
    snap = json.loads((where / "gap.json").read_text())
    part_two = {c["name"] for c in json.loads(shards["parts"][1].read_text())["cases"] if c["results"]}
    assert snap["complete"] is False and set(snap["missing"]) == part_two


def test_merge_refuses_parts_of_different_inventories(shards, tmp_path):
    other = json.loads(shards["parts"][1].read_text())
    other["cases"] = other["cases"][:-1]
    strange = tmp_path / "other.json"
    strange.write_text(json.dumps(other))
    done = merge(str(tmp_path / "m.json"), str(shards["parts"][0]), str(strange), cwd=tmp_path)
    assert done.returncode == 2 and "different case inventories" in done.stderr


def test_sigterm_stops_the_survey_like_ctrl_c_and_the_rerun_resumes(tmp_path):
    """A cancelled CI job or `timeout` sends SIGTERM: the probe says it was interrupted, exits 130, leaves
    no worker behind, and the same command then measures only what was left."""
    out, log = tmp_path / "support.json", tmp_path / "calls.log"
    records = tmp_path / ".kexport-work" / "support.json" / "records" / "cpu"
    args = command("--out", str(out), "--jobs", "1")
    first = subprocess.Popen(args, cwd=tmp_path, env=environment(log), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_until(lambda: running(first) and records.is_dir() and list(records.glob("*.json")),
               what="the first run to finish a case", timeout=180)
    first.send_signal(signal.SIGTERM)
    _, stderr = first.communicate(timeout=60)
    assert first.returncode == 130, stderr
    assert "interrupted: rerun the same command to resume" in stderr and "Traceback" not in stderr
    # no worker kept running: none of this run's processes is left (each carries the run's call log variable)
    wait_until(lambda: not holding("KEXPORT_CALL_LOG", str(log)), what="the stopped run's workers to end")
    calls_after_stop = log.read_text().split() if log.exists() else []
    finished = {json.loads(p.read_text())["name"] for p in records.glob("*.json")}
    assert finished and len(finished) < len(NAMES)
    second = run_here(args, tmp_path, log)
    assert second.returncode == 0, second.stderr
    rerun = set(log.read_text().split()[len(calls_after_stop):])
    assert rerun == set(NAMES) - finished


def test_a_shard_measures_one_case_again_and_keeps_the_others(shards):
    """``--shard 1/2 --fresh --only NAME`` on an existing part: NAME is measured again, the part's other cases
    keep their results (it used to write a part holding NAME alone, its other cases lost)."""
    where, part = shards["where"], shards["parts"][0]
    before = json.loads(part.read_text())
    mine = [c["name"] for c in before["cases"] if c["results"]]
    log = where / "again.log"
    again = run_here(command("--out", str(part), "--shard", "1/2", "--jobs", "1", "--fresh", "--only", mine[0]),
                     where, log)
    assert again.returncode == 0, again.stderr
    assert log.read_text().split() == [mine[0]] * len(log.read_text().split()) != []  # only that case ran
    after = json.loads(part.read_text())
    assert [c["name"] for c in after["cases"] if c["results"]] == mine
    assert {k: v for k, v in statuses(after).items()} == statuses(before)
    kept = {c["name"]: c["measured"] for c in after["cases"] if c["results"] and c["name"] != mine[0]}
    assert kept == {c["name"]: c["measured"] for c in before["cases"] if c["name"] in kept}  # not measured again
