"""Two kinds of call a graph library has and kornia hardly does (issue 60), through a real probe run:

* random operators whose output *size* is drawn (tests/probe/probe_cases/random_size_cases.py): a path that
  cannot draw as eager draws is held to the output count, rank, dtype and finiteness, not the sizes;
  torch.compile draws as eager does (inductor's ``fallback_random``) and is compared in full;
* calls that return Python numbers and no tensor (tests/probe/probe_cases/number_cases.py): they ran, so they
  are no eager failure and the run does not exit 4; each path that captures the number is compared number
  with number, one that cannot says "not probed: returns no tensor".
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
CASES = REPO / "tests" / "probe" / "probe_cases"
RANDOM = ("drop_edges[random]", "random_graph[random]", "drop_rows[random]")


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("random_sizes_and_numbers")
    out = where / "support.json"
    done = probe_cli("--cases", str(CASES / "random_size_cases.py"), "--cases", str(CASES / "number_cases.py"),
                     "--out", str(out), "--library", "probe_cases", "--jobs", "1",
                     cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)))
    snapshot = json.loads(out.read_text())
    return done, {c["name"]: c["results"]["cpu"] for c in snapshot["cases"]}, out


# -- random sizes

@pytest.mark.parametrize("name", RANDOM)
def test_a_drawn_size_is_no_mismatch_where_the_path_draws_otherwise(survey, name):
    # onnxruntime draws from its own generator: before, another number of edges read "mismatch"
    _, results, _ = survey
    for path in ("onnx", "export"):
        assert (results[name][path]["status"], results[name][path]["detail"]) == ("ok-unverified", ""), path


@pytest.mark.parametrize("name", RANDOM)
def test_compile_draws_as_eager_and_is_compared_in_full(survey, name):
    # under fallback_random the compiled call keeps eager's very edges: a full comparison, so a verified status
    compiled = survey[1][name]["compile"]
    assert compiled["status"] in ("ok", "ok-breaks"), compiled
    assert "differs" not in compiled["detail"]


def test_the_dynamic_batch_pass_does_not_read_a_drawn_size_as_a_specialisation(survey):
    # at the other batch the kept rows are drawn again: before, "even the output count, shapes ... differ"
    for path, result in survey[1]["drop_rows[random]"].items():
        assert result["dynamic"]["status"] == "ok", (path, result["dynamic"])


# -- numbers

def test_a_number_is_no_eager_failure(survey):
    done, _, _ = survey
    assert done.returncode == 0, done.stderr[-3000:]
    assert "EAGER FAILED" not in done.stdout + done.stderr and "failed eagerly" not in done.stderr


def test_numbers_are_compared_where_a_path_captures_them(survey):
    results = survey[1]
    assert results["num_edges"]["export"]["status"] == "ok" and results["num_edges"]["compile"]["status"] == "ok"
    assert results["shape_of"]["export"]["status"] == "ok" and results["shape_of"]["compile"]["status"] == "ok"
    assert results["node_count"]["onnx"]["status"] == "ok"  # a 0-d output of onnxruntime against eager's int
    assert results["node_count"]["compile"]["status"] in ("ok", "ok-breaks")  # int(...) reads the data back


@pytest.mark.parametrize("name, path, why", [
    ("num_edges", "onnx", "'int' object has no attribute 'name'"),
    ("shape_of", "onnx", "'int' object has no attribute 'name'"),
    ("node_count", "export", "computed from tensor values"),
])
def test_a_path_that_cannot_capture_the_number_says_not_probed(survey, name, path, why):
    result = survey[1][name][path]
    assert (result["status"], result["stage"]) == ("n/a", "no-tensor"), result
    assert result["detail"].startswith("not probed: returns no tensor but a Python number") and why in \
        result["detail"]


def test_a_call_returning_no_number_either_is_not_probed_and_not_an_eager_failure(survey):
    from sphinx_kexport.page.model.page_model import build_model
    from sphinx_kexport.page.model.words import NOTHING_TO_CAPTURE
    from sphinx_kexport.snapshot import load_snapshot

    for result in survey[1]["describe"].values():
        assert (result["status"], result["stage"]) == ("n/a", "no-tensor")
        assert result["detail"].startswith("not probed: returns no tensor")
    left_out = build_model(load_snapshot(survey[2])).not_probed
    assert [(e.case.name, e.kind) for e in left_out] == [("describe", NOTHING_TO_CAPTURE)]
