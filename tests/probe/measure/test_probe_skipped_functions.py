"""A function dynamo skips (torch.compiler.disable, its own skip list, a builtin it does not know) is named, and
counted as a graph break only where it splits the graph (issue 43: e3nn's ``wigner_3j[test]`` read 1 break and
``spherical_harmonics_alpha_beta[test]`` 3 where ``torch._dynamo.explain`` gives 1 graph and 0 breaks).

Each expectation is checked against a plain script on the same torch first (the first test), then the probe
(a real run of tests/probe/probe_cases/skipped_function_cases.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli

torch = pytest.importorskip("torch")

from probe_cases import skipped_function_cases as cases  # noqa: E402
from sphinx_kexport.probe.measure.graph_breaks import skipped_function  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "skipped_function_cases.py"
SOURCE = CASE_FILE.read_text().splitlines()
DISABLED = "disabled_helper (torch.compiler.disable)"


@pytest.mark.parametrize("fn, graphs, breaks", [(cases.disabled_first, 1, 0), (cases.disabled_between, 2, 1)])
def test_a_plain_script_agrees_fullgraph_fails_yet_explain_counts_only_a_split(fn, graphs, breaks):
    x = torch.rand(2, 3)
    torch._dynamo.reset()
    try:
        explained = torch._dynamo.explain(fn)(x)
        assert (explained.graph_count, explained.graph_break_count) == (graphs, breaks)
        torch._dynamo.reset()
        with pytest.raises(Exception, match="torch.compiler.disable"):
            torch.compile(fn, fullgraph=True, backend="eager")(x)
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("message, name", [
    ("Skip calling `torch.compiler.disable()`d function\n  Explanation: Skip calling function `<function helper at "
     "0x7fd5e837e200>` since it was wrapped with `torch.compiler.disable` (reason: None)",
     "helper (torch.compiler.disable)"),
    # torch 2.13 on e3nn's spherical_harmonics_alpha_beta, which builds an fx.GraphModule inside the call
    ("Attempted to call function marked as skipped\n  Explanation: Dynamo developers have intentionally marked that "
     "the function `GraphModule.__new__` in file `/x/torch/fx/graph_module.py` should not be traced.",
     "GraphModule.__new__ (dynamo skips it on purpose)"),
    ("Attempted to call function marked as skipped\n  Explanation: Dynamo does not know how to trace the builtin "
     "`time.perf_counter.` This function is either a Python builtin", "time.perf_counter (a builtin dynamo does not "
                                                                      "trace)"),
    ("Data dependent operator\n  Explanation: Operator `aten.equal.default` has a non-Tensor output", ""),
])
def test_a_skipped_function_is_named_from_dynamos_message(message, name):
    assert skipped_function(message) == name


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    where = tmp_path_factory.mktemp("skipped")
    done = probe_cli("--cases", str(CASE_FILE), "--out", str(where / "s.json"), "--library", "probe_cases",
                     "--jobs", "1", "--no-dynamic", cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = json.loads((where / "s.json").read_text())
    return {c["name"]: c["results"]["cpu"]["compile"] for c in snapshot["cases"]}, done.stdout


def _line(where: str) -> str:
    file, line = where.split(":")
    assert file == "probe_cases/skipped_function_cases.py"
    return SOURCE[int(line) - 1]


@pytest.mark.probe
def test_a_skipped_helper_that_splits_nothing_is_no_break_but_not_ok(compiled):
    results, stdout = compiled
    result = results["disabled_first"]
    # fullgraph=True fails, torch.compile runs and matches eager: supported, with what dynamo skips said
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 0
    assert result["skipped_functions"] == [DISABLED]
    assert result["detail"].startswith(f"dynamo skips 1 function: {DISABLED}, which runs in Python outside the "
                                       "graph, so torch.compile(fn, fullgraph=True) fails (this is no graph break")
    assert "break_reasons" not in result
    assert "disabled_helper(x)" in _line(result["where"])
    assert "ok-breaks(0, skips 1)" in stdout


@pytest.mark.probe
def test_a_skipped_helper_between_traced_code_is_one_break(compiled):
    result = compiled[0]["disabled_between"]
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 1
    assert result["skipped_functions"] == [DISABLED]
    assert result["detail"].startswith(f"1 graph break: the call of {DISABLED} splits the graph; dynamo skips 1 "
                                       "function")
