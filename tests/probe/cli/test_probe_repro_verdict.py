"""How `repro --check` tells a cell's own reason: one real snippet (torch.export of a library function that
branches on tensor values) run in a fresh interpreter, judged against cells recorded with that cause, with
another wording at the same library line, and with another reason elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
LIBRARY = textwrap.dedent("""\
    import torch


    def gate(x):
        if x.sum() > 0:
            return x
        return -x
    """)
CALL = "import torch\nimport gatelib\nfn = gatelib.gate\ninputs = (torch.ones(2, 3),)\n"


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from sphinx_kexport.probe.cli.repro_verdict import Ran
    from sphinx_kexport.snapshot.repro import repro_code

    where = tmp_path_factory.mktemp("verdict")
    (where / "gatelib.py").write_text(LIBRARY)
    snippet = repro_code(CALL, "export", "cpu")
    script = where / "repro_snippet.py"
    script.write_text(snippet)
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], cwd=where, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(where)])))
    assert done.returncode != 0, done.stdout
    return snippet, str(script), Ran(done.returncode, done.stdout, done.stderr, time.monotonic() - started, 300.0)


def judged(ran, **recorded):
    from sphinx_kexport.probe.cli.repro_verdict import judge

    snippet, script, outcome = ran
    return judge({"status": "fail", "stage": "capture", **recorded}, snippet, script, outcome)


def test_the_recorded_worded_cause_reproduces(ran):
    verdict = judged(ran, detail="a Python branch (if / while) tests tensor values at run time", where="")
    assert (verdict.verdict, verdict.what) == ("reproduced", "a Python branch (if / while) tests tensor values at "
                                                             "run time")


def test_another_wording_raised_at_the_recorded_library_line_reproduces_and_says_so(ran):
    verdict = judged(ran, detail="a Python integer is computed from tensor values at run time", where="gatelib.py:5")
    assert verdict.verdict == "reproduced" and "(raised at the recorded line gatelib.py:5)" in verdict.what


def test_another_reason_at_another_line_ends_otherwise_with_what_it_raised(ran):
    verdict = judged(ran, detail="no ONNX lowering for torch.linalg.svd", where="gatelib.py:7")
    assert verdict.verdict == "ended otherwise"
    assert verdict.what == "raised a Python branch (if / while) tests tensor values at run time"


def test_a_mismatch_cell_does_not_reproduce_by_raising_before_the_comparison(ran):
    verdict = judged(ran, status="mismatch", detail="runs, but the result differs from eager")
    assert verdict.verdict == "ended otherwise" and verdict.what.startswith("raised before the comparison: ")


def test_an_operator_spelled_in_another_namespace_is_the_same_cause():
    from sphinx_kexport.probe.cli.repro_verdict import _same_words

    assert _same_words("no ONNX lowering for torch.sample_dirichlet", "no ONNX lowering for aten._sample_dirichlet")
    assert _same_words("no ONNX lowering for torch.linalg.svd", "no ONNX lowering for aten._linalg_svd.default")
    assert not _same_words("no ONNX lowering for torch.linalg.svd", "no ONNX lowering for torch.linalg.solve")


def test_a_recorded_reason_that_quotes_the_exception_after_its_own_words_reproduces(ran):
    # the probe words some failures as its own stage, then the exception ("onnxruntime cannot run the exported
    # graph: RuntimeError: Numpy_type 14 can't be converted to MLDataType."): the same root line, quoted
    from sphinx_kexport.probe.cli.repro_verdict import exception_lines
    from sphinx_kexport.probe.measure.explain import clean_line

    _, _, outcome = ran
    name, message = exception_lines(outcome.stderr)[-1]
    line = clean_line(f"{name}: {message}")
    assert len(line) >= 30, line
    quoted = judged(ran, detail=f"the stage the probe names: {line}", where="")
    assert quoted.verdict == "reproduced", (quoted, line)
    # a bare type name quoted is not the same failure
    assert judged(ran, detail=f"the stage the probe names: {name}: another message", where="").verdict \
        == "ended otherwise"
