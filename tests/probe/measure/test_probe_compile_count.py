"""torch.compile's step compiles a case as often as its verdict needs, and no more (issue 63).

Counted on real torch functions with benchmarks/compile_count.py (torch's own entry points wrapped): the
graphs dynamo hands a backend (each a trace of the call) and the graphs inductor compiles. Before, a call
that compiles as one graph was traced three times (fullgraph=True trace-only for the first break, the
default compile trace-only for its breaks, then fullgraph=True with inductor for the status); now the
status's compile alone, whose graph tells the rest. The records stay as they were: status, breaks, graphs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from compile_count import counting  # noqa: E402


def whole(x):
    return torch.sin(x) * 2 + x.cos()


def breaks(x):  # a branch on a tensor's value: fullgraph=True fails, the default compile breaks once
    y = torch.sin(x)
    if y.sum() > 0:
        return y * 2
    return y - 1


def reads_a_number(x):  # fullgraph=True captures .item() as a symbol; the default compile breaks there
    return x * x.sum().item()


def compile_step(fn):
    spec = case(fn.__name__, fn, [torch.rand(2, 3)], package="tests")
    with counting() as found:
        result = Measurement(spec, "cpu", 18, library_root(""), dynamic=False).measure(["compile"])["compile"]
    return result, found


def test_a_call_that_compiles_as_one_graph_is_traced_once():
    result, found = compile_step(whole)
    assert (result["status"], result["graph_breaks"], result["graphs"], result["fullgraph"]) == ("ok", 0, 1, True)
    assert (found.captured, found.inductor) == (1, 1)  # before: 3 traces (two trace-only), 1 inductor compile


def test_a_call_that_breaks_is_compiled_by_the_default_compile_once_per_graph():
    result, found = compile_step(breaks)
    assert (result["status"], result["graph_breaks"], result["graphs"]) == ("ok-breaks", 1, 2)
    assert (found.captured, found.inductor) == (2, 2)  # the default compile's two graphs; fullgraph=True stops early


def test_a_data_dependent_graph_still_has_its_default_breaks_traced():
    result, found = compile_step(reads_a_number)
    assert (result["status"], result["graph_breaks"], result["fullgraph"]) == ("ok", 1, True)
    assert result["breaks_removed_by"] == ["capture_scalar_outputs"]
    # the status's compile, the default compile traced (two graphs), the flag that removes the break (one)
    assert (found.captured, found.inductor) == (4, 1)
