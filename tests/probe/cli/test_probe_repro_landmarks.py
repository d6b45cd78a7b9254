"""The landmarks a repro snippet carries are the ones `repro --check` matches: one module defines them
(snapshot/repro_landmarks.py), the snippet writer and the verdict read them from it, so changing one there
changes what is written and what is looked for together. Real snippets run in a fresh interpreter: one whose
eager run raises, one that stops because its call cannot be rebuilt, one that runs to its comparison."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
# eager raises: a view to a size the input does not have (the probe recorded a capture failure, not an eager one)
EAGER_RAISES = "import torch\nfn = lambda x: x.view(5)\ninputs = (torch.ones(2, 3),)\n"
DIFFERS = "import torch\nfn = lambda x: x + 1\ninputs = (torch.ones(2),)\n"


def _run(snippet: str, where: Path):
    from sphinx_kexport.probe.cli.repro_verdict import Ran

    script = where / "repro_snippet.py"
    script.write_text(snippet)
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], cwd=where, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    return str(script), Ran(done.returncode, done.stdout, done.stderr, time.monotonic() - started, 300.0)


def _judged(call: str, where: Path, path: str = "export", **recorded):
    from sphinx_kexport.probe.cli.repro_verdict import judge
    from sphinx_kexport.snapshot.repro import repro_code

    snippet = repro_code(call, path, "cpu")
    script, ran = _run(snippet, where)
    return snippet, judge({"status": "fail", "stage": "capture", "detail": "", **recorded}, snippet, script, ran)


@pytest.fixture(params=["as shipped", "changed"])
def landmarks(request, monkeypatch):
    """The landmarks module, as shipped and with its eager line and its cannot-rebuild words changed."""
    from sphinx_kexport.snapshot import repro_landmarks

    if request.param == "changed":
        monkeypatch.setattr(repro_landmarks, "EAGER_LINE", "expected = leaves(model(*inputs))  # eager, seeded")
        monkeypatch.setattr(repro_landmarks, "CANNOT_REBUILD", "this repro cannot build again")
    return repro_landmarks


def test_the_eager_line_written_is_the_one_matched(landmarks, tmp_path):
    snippet, verdict = _judged(EAGER_RAISES, tmp_path)
    assert f"    {landmarks.EAGER_LINE}\n" in snippet
    assert snippet.count(landmarks.seed_line()) == 2 and f"manual_seed({landmarks.SEED})" in snippet
    # found at the eager line, not taken for the call's own building
    assert verdict.verdict == "could not run" and verdict.what.startswith("the eager run raised"), verdict


def test_the_cannot_rebuild_line_written_is_the_one_matched(landmarks, tmp_path):
    call = "import torch\n" + landmarks.cannot_rebuild("the probed callable (see the case module)") + "\n"
    snippet, verdict = _judged(call, tmp_path)
    assert verdict.verdict == "could not run"
    assert verdict.what.startswith(f"{landmarks.CANNOT_REBUILD} the probed callable"), verdict


def test_a_run_that_reaches_the_comparison_is_seen_there(tmp_path):
    """The comparison's first line begins with COMPARE_START; a mismatch raised there reproduces."""
    from sphinx_kexport.snapshot import repro_landmarks

    snippet, verdict = _judged(DIFFERS.replace("x + 1", "x + 1 if not torch.compiler.is_compiling() else x"),
                               tmp_path, path="compile", status="mismatch")
    compare = [line.strip() for line in snippet.splitlines()
               if line.strip().startswith(repro_landmarks.COMPARE_START)]
    assert compare and compare[0].startswith("assert len(got)"), snippet
    assert verdict.verdict == "reproduced" and verdict.what.startswith("differs from eager"), verdict


def test_the_probe_measures_from_the_snippets_seed():
    from sphinx_kexport.probe.measure import case_run
    from sphinx_kexport.snapshot import repro_landmarks

    assert case_run.SEED == repro_landmarks.SEED
