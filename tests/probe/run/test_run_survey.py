"""``run_survey(config)``: a whole survey in-process, and a parent that never runs case code.

The first test runs ``run_survey`` in this process (the workers and the inventory's children are real
processes). The second needs a fresh interpreter, because what it checks is what the calling process
imports and how much memory it takes while a library's examples allocate half a gigabyte.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "probe" / "probe_cases"

# An example that holds ~512 MB while it runs: the parent's memory must not see it.
HEAVY_LIBRARY = '''
    import torch


    def heavy_double(x):
        """Double.

        >>> ballast = torch.ones(128, 1024, 1024)  # 512 MB that the example holds while it runs
        >>> heavy_double(torch.ones(2, 3)).shape
        torch.Size([2, 3])
        """
        return 2 * x
    '''


class _WholeLines(io.StringIO):
    """A progress stream (not a terminal) that fails a write of less than one whole line: another process's
    line written to the same log in between would be glued to it."""

    def write(self, text: str) -> int:
        assert text.endswith("\n"), repr(text)
        return super().write(text)


def test_run_survey_runs_in_process_and_returns_the_snapshot_and_its_counts(tmp_path):
    from sphinx_kexport.probe import ProbeConfig, SurveyError, run_survey
    from sphinx_kexport.snapshot import read_snapshot

    out = tmp_path / "snap.json"
    config = ProbeConfig(cases=[str(CASES / "basic_cases.py")], out=out, jobs=2, only=["plain_ok", "needs_weights"],
                         dynamic=False)
    progress = _WholeLines()
    first = run_survey(config, stream=progress)
    assert first.written and first.out == out and read_snapshot(out)[0] == first.snapshot
    assert (first.counts.measured, first.counts.skipped, first.counts.reused_snapshot) == (1, 1, 0)
    # the cases --only left out have no results: recorded as a restricted run, not as lost (the page says so)
    others = [c["name"] for c in first.snapshot["cases"] if c["name"] not in ("plain_ok", "needs_weights")]
    assert first.snapshot["missing"] == others
    assert first.snapshot["selection"] == {"only": ["plain_ok", "needs_weights"], "left_out": others}
    assert first.stats["parent_peak_rss_kb"] > 0 and first.stats["case_peak_rss_kb"]["plain_ok [cpu]"] > 0
    steps = first.stats["step_seconds"]  # dynamic=False: no ":dynamic" step
    assert set(steps) == {"build", "eager", "onnx", "export", "compile"} and all(s >= 0 for s in steps.values())
    # a plain function's eager step can take under the 1 ms the stats round to; the three paths never do
    assert all(steps[path] > 0 for path in ("onnx", "export", "compile"))
    assert sum(steps.values()) <= first.stats["case_seconds"]["plain_ok [cpu]"] + 0.01
    assert "building the cases of 1 case module" in progress.getvalue() and "plain_ok" in progress.getvalue()
    again = run_survey(config, stream=io.StringIO())
    assert not again.written and again.counts.reused_snapshot == 1 and again.counts.measured == 0
    with pytest.raises(SurveyError, match="no case matches --only nothing_like_it"):
        run_survey(ProbeConfig(cases=[str(CASES / "basic_cases.py")], out=tmp_path / "x.json", only=["nothing_like_it"]),
                   stream=io.StringIO())
    assert not (tmp_path / "x.json").exists()


class _InterruptAfter(io.StringIO):
    """A progress stream that raises KeyboardInterrupt (as Ctrl-C would) once ``line`` has been written."""

    def __init__(self, line: str):
        super().__init__()
        self.line, self.fired = line, False

    def write(self, text: str) -> int:
        written = super().write(text)
        if not self.fired and self.line in self.getvalue():
            self.fired = True  # once: the survey's own clean-up goes on writing
            raise KeyboardInterrupt
        return written


def test_an_interrupted_survey_still_writes_its_stats_and_each_record_keeps_its_cost(tmp_path):
    from sphinx_kexport.probe import ProbeConfig, run_survey
    from sphinx_kexport.probe.run.workdir import work_dir_for

    out, stats = tmp_path / "snap.json", tmp_path / "stats.json"
    config = ProbeConfig(cases=[str(CASES / "basic_cases.py")], out=out, jobs=1, stats=stats, dynamic=False,
                         only=["plain_ok", "clamp[kwargs]"])
    with pytest.raises(KeyboardInterrupt):
        run_survey(config, stream=_InterruptAfter("plain_ok"))
    assert not out.exists()
    written = json.loads(stats.read_text())
    assert written["ended"] is False and written["cases_finished"] >= 1
    assert written["case_peak_rss_kb"]["plain_ok [cpu]"] > 100 * 1024  # a worker holding torch: over 100 MB
    assert written["case_seconds"]["plain_ok [cpu]"] > 0 and written["parent_peak_rss_kb"] > 0
    (record,) = [json.loads(p.read_text()) for p in (work_dir_for(out) / "records" / "cpu").glob("plain_ok*.json")]
    assert record["peak_rss_kb"] == written["case_peak_rss_kb"]["plain_ok [cpu]"] and record["seconds"] > 0
    assert 0 < record["began_rss_kb"] == written["case_began_rss_kb"]["plain_ok [cpu]"] <= record["peak_rss_kb"]
    resumed = run_survey(config, stream=io.StringIO())  # the same command resumes: plain_ok is not measured again
    assert resumed.counts.reused_work >= 1 and json.loads(stats.read_text())["ended"] is True


# A case module that bakes its process id into a case: the worker rebuilds another case than the inventory's
# child described (the definition digests differ), as any case module whose cases change between imports would.
DRIFTING_CASES = '''
    import os

    import torch

    from sphinx_kexport.probe import case


    def scale(x, k):
        return x * k


    CASES = [case("per_process", scale, [torch.ones(2, 3)], {"k": float(os.getpid())}, package="demo")]
    '''


def test_a_case_its_worker_cannot_build_is_the_probes_error_not_a_status(tmp_path):
    from sphinx_kexport.probe import ProbeConfig, run_survey

    (tmp_path / "drifting_cases.py").write_text(textwrap.dedent(DRIFTING_CASES))
    progress = io.StringIO()
    result = run_survey(ProbeConfig(cases=["drifting_cases.py"], out=tmp_path / "snap.json", root=tmp_path,
                                    dynamic=False), stream=progress)
    assert len(result.not_built) == 1 and result.not_built[0].startswith("per_process [cpu]: ")
    assert "no longer registers case 'per_process' as it did when the probe started (it differs in: kwargs)" \
        in result.not_built[0]
    assert "PROBE ERROR, not measured" in progress.getvalue()
    # no status is claimed for it (before, every path read "fail: the worker process exited with status 1")
    (entry,) = result.snapshot["cases"]
    assert entry["results"] == {} and result.snapshot["missing"] == ["per_process"]
    assert result.counts.measured == 1


def test_the_parent_never_imports_torch_and_a_heavy_example_does_not_raise_its_memory(tmp_path):
    library = tmp_path / "lib"
    (library / "heavylib_kx").mkdir(parents=True)
    (library / "heavylib_kx" / "__init__.py").write_text(textwrap.dedent(HEAVY_LIBRARY))
    (tmp_path / "heavy_cases.py").write_text("from sphinx_kexport.probe import cases_from_docstrings\n"
                                             "CASES = cases_from_docstrings('heavylib_kx')\n")
    script = textwrap.dedent("""
        import json, sys
        from pathlib import Path
        from sphinx_kexport.probe import ProbeConfig, run_survey
        from sphinx_kexport.probe.base.memory import peak_rss_kb
        result = run_survey(ProbeConfig(cases=["heavy_cases.py"], out=Path("snap.json"), root=Path.cwd(), jobs=1,
                                        library="heavylib_kx", dynamic=False), stream=open("progress.txt", "w"))
        print(json.dumps({"torch": "torch" in sys.modules, "kornia_or_lib": "heavylib_kx" in sys.modules,
                          "parent_kb": peak_rss_kb(),
                          "children": result.stats["inventory"]["modules"], "measured": result.counts.measured,
                          "names": [c["name"] for c in result.snapshot["cases"]]}))
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(library)]), KEXPORT_DISCOVERY_CACHE="off")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["names"] == ["heavy_double[doc]"] and found["measured"] == 1
    assert not found["torch"] and not found["kornia_or_lib"]  # neither torch nor the library in the parent
    assert found["children"][0]["peak_rss_kb"] > 512 * 1024  # the example's ballast was held, in the child
    # the parent stays a small Python process: its peak is a fraction of the child's, which held the ballast
    assert found["parent_kb"] < found["children"][0]["peak_rss_kb"] / 2, found


def test_hand_written_cases_are_measured_while_a_slow_module_is_still_being_built(tmp_path):
    """With `library` set, a module's hand-written cases go to the workers the moment the module is described:
    the fast module's case is measured before the slow module has finished importing."""
    from sphinx_kexport.probe import ProbeConfig, run_survey

    (tmp_path / "a_fast.py").write_text("import torch\nfrom sphinx_kexport.probe import case\n"
                                        "CASES = [case('fast_sin', torch.sin, [torch.rand(2, 3)], package='p')]\n")
    # the slow module finishes importing only once the fast case's record is written (or after 240 s):
    # without streaming no worker starts before every module is built, and the order below fails
    records = tmp_path / ".kexport-work" / "snap.json" / "records" / "cpu"
    (tmp_path / "b_slow.py").write_text(
        "import pathlib, time\nimport torch\nfrom sphinx_kexport.probe import case\n"
        f"records, deadline = pathlib.Path({str(records)!r}), time.monotonic() + 240\n"
        "while not list(records.glob('fast_sin*.json')) and time.monotonic() < deadline:\n"
        "    time.sleep(0.2)\ntime.sleep(2)\n"
        "CASES = [case('slow_cos', torch.cos, [torch.rand(2, 3)], package='p')]\n")
    progress = io.StringIO()
    result = run_survey(ProbeConfig(cases=[str(tmp_path / "a_fast.py"), str(tmp_path / "b_slow.py")],
                                    out=tmp_path / "snap.json", root=tmp_path, jobs=2, library="torch",
                                    dynamic=False), stream=progress)
    lines = progress.getvalue().splitlines()
    fast = next(i for i, line in enumerate(lines) if "fast_sin" in line and "onnx ok" in line)
    slow_built = next(i for i, line in enumerate(lines) if "b_slow.py: 1 case" in line)
    assert fast < slow_built, "\n".join(lines)
    assert [c["name"] for c in result.snapshot["cases"]] == ["fast_sin", "slow_cos"] and result.counts.measured == 2
    assert result.stats["streamed"] and all(c["results"]["cpu"]["onnx"]["status"] == "ok"
                                            for c in result.snapshot["cases"])


# Its case's name comes from the environment and from a file in the current directory, both read at import: in
# the inventory's child and again in the worker, which must rebuild the case the child described.
STATEFUL_CASES = '''
    import os
    from pathlib import Path

    import torch

    from sphinx_kexport.probe import case

    name = os.environ["KX_CASE_NAME"] + "_" + Path("tag.txt").read_text().strip()
    CASES = [case(name, torch.sin, [torch.rand(2, 3)], package="demo")]
    '''


def test_a_second_survey_in_one_process_runs_under_its_own_environment_and_directory(tmp_path, monkeypatch):
    """The children are forks of a server the first survey started; before, the second survey's children
    imported its case module under the first one's environment (``first_there``)."""
    from sphinx_kexport.probe import ProbeConfig, run_survey

    (tmp_path / "stateful_cases.py").write_text(textwrap.dedent(STATEFUL_CASES))
    names = []
    for run, tag in (("first", "here"), ("second", "there")):
        folder = tmp_path / run
        folder.mkdir()
        (folder / "tag.txt").write_text(tag)
        monkeypatch.chdir(folder)
        monkeypatch.setenv("KX_CASE_NAME", run)
        result = run_survey(ProbeConfig(cases=[str(tmp_path / "stateful_cases.py")], out=folder / "snap.json",
                                        root=folder, jobs=1, dynamic=False), stream=io.StringIO())
        assert result.not_built == [] and result.counts.measured == 1, run
        names.append([c["name"] for c in result.snapshot["cases"]])
    assert names == [["first_here"], ["second_there"]]
