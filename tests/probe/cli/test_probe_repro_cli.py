"""`probe repro`: the snippet of every failing cell of a real survey runs as pasted and fails as recorded.

`probe repro --check` runs them all over the same survey, each snippet as pasted in a fresh interpreter, and
judges each reproduced, ended otherwise or could not run; the exit status says whether all reproduced. The
cells that end otherwise or cannot run are made from the survey's snapshot: a passing cell recorded as
failing (its snippet runs to the end), a failing cell recorded with another reason, a call whose inputs line
cannot be built, and a time limit shorter than the interpreter takes to start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probe_cli import probe_cli
from processes import alive, children
from sphinx_kexport.snapshot import read_snapshot
from sphinx_kexport.snapshot.records import build
from sphinx_kexport.snapshot.repro_checks import check_matches, parse_checks

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "repro_cases.py"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))


def probe(*args: str, cwd: Path, **_) -> subprocess.CompletedProcess:
    """The probe command, run by this process (probe_cli.py); the snippets below run in fresh interpreters."""
    return probe_cli(*args, cwd=cwd, env=ENV)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("repro")
    done = probe("--cases", str(CASE_FILE), "--out", "repro.json", "--library", "probe_cases", "--jobs", "1",
                 "--no-dynamic", cwd=where)
    assert done.returncode == 0, done.stderr
    return where, json.loads((where / "repro.json").read_text())


def failing_cells(snapshot):
    return [(c["name"], path, r) for c in snapshot["cases"] for path, r in c["results"]["cpu"].items()
            if r["status"] in ("fail", "mismatch")]


@pytest.fixture(scope="module")
def checked(survey):
    """``repro repro.json --check`` over every failing cell, run once for the module: (the command's result,
    {snippet: what its run in a fresh interpreter left}). Each snippet's run is kept as the check's runner
    returns it (its exit status, stdout and stderr), so the tests read the same runs the verdicts were made of
    instead of running every snippet a second time."""
    from sphinx_kexport.probe.cli import repro_check

    where, _ = survey
    runs: dict[str, repro_check.Ran] = {}
    real = repro_check.Runner._run

    def kept(self, script, folder, limit):
        snippet = Path(script).read_text(encoding="utf-8")
        ran = real(self, script, folder, limit)
        runs[snippet] = ran
        return ran

    repro_check.Runner._run = kept
    try:
        done = probe("repro", "repro.json", "--check", "--jobs", "2", "--write", "check.json", cwd=where)
    finally:
        repro_check.Runner._run = real
    return done, runs


def test_every_failing_cell_reproduces_its_recorded_failure(survey, checked):
    """The snippet `repro CASE --path PATH` prints for each failing cell is what --check ran in a fresh
    interpreter, and that run failed as recorded (read here from its traceback, not from --check's verdict)."""
    from sphinx_kexport.probe.measure.explain import known_cause

    where, snapshot = survey
    cells = failing_cells(snapshot)
    assert {status for *_, status in [(n, p, r["status"]) for n, p, r in cells]} == {"fail", "mismatch"}
    assert len(cells) >= 6
    _, runs = checked
    assert len(runs) == len(cells)
    for name, path, recorded in cells:
        shown = probe("repro", "repro.json", name, "--path", path, cwd=where, timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout in runs, (name, path)  # the check ran this very snippet, as pasted
        ran = runs[shown.stdout]
        assert ran.returncode is not None and ran.returncode != 0, (name, path, ran.stdout[-1000:])
        if recorded["status"] == "mismatch":
            assert "AssertionError" in ran.stderr and "not close" in ran.stderr, (name, path, ran.stderr[-1500:])
        else:
            reason = known_cause(ran.stderr)
            assert reason and reason in recorded["detail"], (name, path, recorded["detail"], ran.stderr[-1500:])


def test_snippets_import_the_defining_module_and_build_the_probed_module(survey):
    where, snapshot = survey
    cases = {c["name"]: c for c in snapshot["cases"]}
    assert "import probe_cases.repro_cases\n" in cases["singular_values"]["call"]  # not just `import probe_cases`
    gain = probe("repro", "repro.json", "gain[module]", "--path", "export", cwd=where, timeout=60).stdout
    assert "target = Gain(2.5)" in gain and "Gain()" not in gain  # the case's code, not a bare constructor
    assert gain.startswith("# gain[module]: torch.export on cpu, recorded fail (a Python branch")
    small = cases["branch_on_values"]["call"]
    assert "torch.tensor([[" in small and "torch.rand" not in small  # small inputs: the real values


def test_a_passing_cell_snippet_runs_clean(survey, tmp_path):
    where, _ = survey
    shown = probe("repro", "repro.json", "singular_values", "--path", "export", cwd=where, timeout=60)
    script = tmp_path / "ok.py"
    script.write_text(shown.stdout)
    ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0 and "same as eager" in ran.stdout, ran.stderr[-1500:]


@pytest.mark.parametrize("args, message", [
    (["no_such_case", "--path", "onnx"], "has no case 'no_such_case'"),
    (["singular_value", "--path", "onnx"], "Did you mean 'singular_values'"),
    (["singular_values", "--path", "tensorrt"], "invalid choice: 'tensorrt'"),
    (["singular_values", "--path", "onnx", "--device", "cuda"], "holds no cuda results"),
])
def test_unknown_case_path_or_device_is_a_clear_error(survey, args, message):
    where, _ = survey
    done = probe("repro", "repro.json", *args, cwd=where, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


# -- repro --check

def _cells(snapshot: dict, wanted: set[str]) -> dict[tuple[str, str], dict]:
    return {(c["name"], path): r for c in snapshot["cases"] for path, r in c["results"]["cpu"].items()
            if r["status"] in wanted}


def per_cell(stdout: str) -> dict[tuple[str, str], str]:
    """(case, path) -> its progress line ("[2/3] ended otherwise  case · path: ...")."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("["):
            rest = line.split("] ", 1)[1]
            verdict = next(v for v in ("reproduced", "ended otherwise", "could not run") if rest.startswith(v))
            case, path = rest[len(verdict):].strip().split(": ", 1)[0].rsplit(" · ", 1)
            found[case, path] = line
    return found


def snapshot_status(snapshot: dict, cell: tuple[str, str]) -> str:
    return next(c["results"]["cpu"][cell[1]]["status"] for c in snapshot["cases"] if c["name"] == cell[0])


def _variant(where: Path, snapshot: dict, name: str, change) -> str:
    changed = json.loads(json.dumps(snapshot))
    for case in changed["cases"]:
        change(case)
    (where / name).write_text(json.dumps(changed))
    return name


def test_every_failing_cell_of_a_real_survey_is_reported_reproduced(survey, checked):
    where, snapshot = survey
    failing = _cells(snapshot, {"fail", "mismatch", "timeout"})
    assert {r["status"] for r in failing.values()} == {"fail", "mismatch"}, failing
    done, _ = checked  # repro repro.json --check --jobs 2 --write check.json
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = per_cell(done.stdout)
    assert set(lines) == set(failing), done.stdout
    assert all("] reproduced " in line for line in lines.values()), done.stdout
    assert f"{len(failing)} of {len(failing)} failing cells checked" in done.stdout
    assert f"{len(failing)} reproduced (100.0 %), 0 ended otherwise, 0 could not run" in done.stdout
    assert "  hand-written: " in done.stdout and "not reproduced:" not in done.stdout
    written = json.loads((where / "check.json").read_text())
    assert {(row["case"], row["path"]) for row in written["cells"]} == set(failing)
    assert {row["verdict"] for row in written["cells"]} == {"reproduced"}
    # the file is what the page's :repro-check: reads, and it matches the snapshot it checked
    checks = parse_checks(written, "check.json")
    assert (checks.device, checks.snapshot) == ("cpu", "repro.json")
    check_matches(checks, build(read_snapshot(where / "repro.json")[0], "repro.json"))
    ok = [line for line in done.stdout.splitlines() if "singular_values · onnx" in line]
    assert ok and "no ONNX lowering for torch.linalg.svd" in ok[0]  # the worded cause it reproduced


def test_cells_that_end_otherwise_or_cannot_run_are_said_with_what_and_exit_1(survey):
    where, snapshot = survey
    clean, other, broken = ("singular_values", "export"), ("branch_on_values", "export"), ("erf_float64", "onnx")
    assert snapshot_status(snapshot, clean) == "ok" and snapshot_status(snapshot, other) == "fail"
    assert snapshot_status(snapshot, broken) == "fail"

    def change(case):
        for path, result in case["results"]["cpu"].items():
            if (case["name"], path) == clean:  # its snippet runs clean: it does not reproduce a failure
                result.update(status="fail", detail="no ONNX lowering for torch.nextafter", stage="translate")
            if (case["name"], path) == other:  # it fails, for the reason it really has, not this one
                result.update(detail="no ONNX lowering for torch.nextafter", where="")
        if case["name"] == broken[0]:
            case["call"] = case["call"].replace("inputs = (", "inputs = (not_defined_anywhere, ")

    name = _variant(where, snapshot, "changed.json", change)
    done = probe("repro", name, "--check", "--only", clean[0], "--only", other[0], "--only", broken[0],
                 "--jobs", "2", cwd=where)
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    lines = per_cell(done.stdout)
    said = lines[clean]
    assert "ended otherwise" in said and "recorded fail (no ONNX lowering for torch.nextafter)" in said
    assert "ran to the end (same as eager)" in said
    said = lines[other]
    assert "ended otherwise" in said and "; raised " in said and "torch.nextafter" not in said.split("; raised ")[1]
    said = lines[broken]
    assert "could not run" in said and "building the call raised: NameError" in said
    assert "not reproduced:" in done.stdout and "Traceback" not in done.stdout


def test_a_time_limit_reproduces_a_timeout_cell_and_ends_another_otherwise(survey):
    where, snapshot = survey
    first, second = ("singular_values", "onnx"), ("erf_float64", "onnx")

    def change(case):
        for path, result in case["results"]["cpu"].items():
            if (case["name"], path) == first:
                result.update(status="timeout", detail="ran past the time limit of 1 s", stage="process",
                              time_limit=1.0)

    name = _variant(where, snapshot, "timeout.json", change)
    done = probe("repro", name, "--check", "--only", first[0], "--path", first[1], "--timeout", "1", cwd=where)
    # "still running after 1 s": the snippet was stopped at its limit, not run to its end
    assert done.returncode == 0 and "reproduced" in done.stdout and "still running after 1 s" in done.stdout
    done = probe("repro", "repro.json", "--check", "--only", second[0], "--path", second[1], "--timeout", "1",
                 cwd=where)
    assert done.returncode == 1 and "ended otherwise" in done.stdout and "still running after 1 s" in done.stdout


def test_ctrl_c_stops_the_snippets_and_prints_what_finished(survey):
    where, _ = survey
    process = subprocess.Popen([sys.executable, "-m", "sphinx_kexport.probe", "repro", "repro.json", "--check"],
                               cwd=where, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_ctrl_c_as_in_a_terminal)
    first = process.stdout.readline()
    assert first.startswith("checking "), first
    # Ctrl-C while a snippet runs: wait until one is a live child of the check (a fixed sleep raced a busy
    # machine, where the check could still be starting, or already done)
    snippets = running_snippets(process.pid, timeout=120)
    assert snippets and process.poll() is None, "no snippet was seen running"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (out[-1000:], err[-2000:])
    assert "interrupted:" in err and "the running snippets were stopped" in err and "Traceback" not in err
    assert "failing cells checked" in out  # the summary of what finished
    assert not [pid for pid in snippets if alive(pid)]  # stopped, not left running


def _ctrl_c_as_in_a_terminal() -> None:
    """In the check's process before it starts: SIGINT at its default and not blocked, as a shell started from a
    terminal gives it. A process inherits an ignored or blocked SIGINT, and in the whole suite (not alone) this
    test's worker passed one on: the check then never saw the Ctrl-C and ran to its end (not found which
    earlier test of that worker leaves it so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def running_snippets(pid: int, timeout: float) -> list[int]:
    """The process ids of the snippets ``pid`` runs (its children running ``repro_snippet.py``), once there
    is one; [] when none ran within ``timeout`` seconds or ``pid`` ended first."""
    from sphinx_kexport.probe.cli.repro_check import SCRIPT

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive(pid):
        found = children(pid, running=SCRIPT)
        if found:
            return found
        time.sleep(0.05)
    return []


@pytest.mark.parametrize("args, message", [
    (["repro.json", "singular_values", "--check"], "name cases with --only"),
    (["repro.json", "--check", "--jobs", "0"], "--jobs must be 1 or more"),
    (["repro.json", "singular_values"], "name the CASE and its --path"),
    (["repro.json", "singular_values", "--path", "onnx", "--only", "x"], "go with --check"),
])
def test_mistakes_on_the_command_line_are_said_with_status_2(survey, args, message):
    where, _ = survey
    done = probe("repro", *args, cwd=where)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
