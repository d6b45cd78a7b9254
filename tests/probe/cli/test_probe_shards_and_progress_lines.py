"""The command line around a survey: an empty shard of an --only selection writes an empty part, and a case
that fails eagerly gets one progress line that says so."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "graph_break_cases.py"


def test_a_shard_holding_none_of_the_selected_cases_writes_an_empty_part(tmp_path):
    # "clean" is the first case, so round-robin puts it in shard 1 of 2; shard 2 holds none of --only clean
    done = probe_cli("--cases", str(CASE_FILE), "--out", "truth.json", "--library", "probe_cases", "--shard", "2/2",
                     "--only", "clean", cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    assert "shard 2/2 holds none of the 1 cases matching --only clean" in done.stdout
    assert "no case matches" not in done.stderr
    part = json.loads((tmp_path / "truth.json").read_text())  # --out names the part itself
    assert part["complete"] is False and all(c["results"] == {} for c in part["cases"])
    unknown = probe_cli("--cases", str(CASE_FILE), "--out", "x.json", "--library", "probe_cases", "--shard", "2/2",
                        "--only", "nothing_like_it", cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert unknown.returncode == 2 and "no case matches --only nothing_like_it" in unknown.stderr


def test_a_mistyped_only_beside_one_that_matches_is_refused_with_the_names_it_meant(tmp_path):
    done = probe_cli("--cases", str(CASE_FILE), "--out", "x.json", "--library", "probe_cases", "--only", "clean",
                     "--only", "tensor_iff", "--only", "calls_a_*", cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("no case matches --only tensor_iff (the case modules register 7 cases). Did you mean 'tensor_if'? "
            "Nothing was run.") in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "x.json").exists()


class Writes(io.StringIO):
    """A stream that keeps each write apart."""

    def __init__(self):
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_without_a_terminal_each_line_is_one_write_with_its_newline(monkeypatch):
    """An inventory child's example lines (stderr) and the survey's progress (stdout) share one CI log: a line
    written as text, then newline, let another process's line land between the two ("...0.4 sresuming: ...")."""
    from sphinx_kexport.probe.discover.library import ObjectReport
    from sphinx_kexport.probe.discover.progress import to_stderr
    from sphinx_kexport.probe.run.progress import Progress

    child = Writes()
    monkeypatch.setattr("sys.stderr", child)
    to_stderr("    cases.py ")(3, 9, ObjectReport("lib.blur"), 0.4)
    assert child.writes == ["    cases.py [3/9] lib.blur: 0 cases, 0.4 s\n"]
    parent = Writes()
    ok = {p: {"status": "ok"} for p in ("onnx", "export", "compile")}
    bar = Progress(3, stream=parent, interactive=False)
    bar.resumed(1, [ok])
    bar.reused(1, [ok], "support.json")
    bar.finished("blur", "cpu", ok, 0.4)
    bar.close()
    assert [w.count("\n") for w in parent.writes] == [1, 1, 1] and all(w.endswith("\n") for w in parent.writes)
    assert parent.writes[0] == "resuming: 1 finished record reused from the work directory\n"


def test_progress_says_eager_failed_instead_of_three_na_cells():
    from sphinx_kexport.probe.run.progress import Progress

    failed = {p: {"status": "n/a", "stage": "eager", "detail": "does not run eagerly: boom"}
              for p in ("onnx", "export", "compile")}
    for interactive in (False, True):
        stream = io.StringIO()
        bar = Progress(1, stream=stream, interactive=interactive)
        bar.finished("op", "cpu", failed, 0.1)
        bar.close()
        assert "EAGER FAILED: does not run eagerly: boom" in stream.getvalue()
        assert "onnx n/a" not in stream.getvalue()
