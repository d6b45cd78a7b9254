"""Failures in words, from piq's survey, on real torch in-process (tests/probe/probe_cases/wordlib models piq):

* an inductor failure on a graph dynamo captured whole is a failure with 0 graph breaks (KID's compile
  cell read "1 break" while explain() counted none);
* ``where`` of an operator without an ONNX lowering is the library line that called it, also in a
  helper outside ``forward`` (KID's pointed at base.py's forward, not at kid.py's torch.randperm);
* a torch.compile recompilation at a new batch says which value was guarded and which library line set
  it, with no machine path, and one cause is one reason-index entry (piq's fsim split into three);
* one data-dependent branch is one graph break (piq's GMSDLoss read "2 breaks": dynamo records it again
  per frame it was tracing).
"""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from probe_cases.wordlib import fsim, kid  # noqa: E402
from probe_cases.wordlib.base import ShuffledMean  # noqa: E402

from sphinx_kexport.page.model.page_model import build_model  # noqa: E402
from sphinx_kexport.page.model.reason_groups import build_index  # noqa: E402
from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure import graph_breaks  # noqa: E402
from sphinx_kexport.probe.measure.case_run import CaseRun  # noqa: E402
from sphinx_kexport.probe.measure.dynamic_batch import DynamicBatch  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402
from sphinx_kexport.snapshot import build, normalise  # noqa: E402

pytestmark = pytest.mark.probe

LIBRARY = Path(__file__).resolve().parents[1] / "probe_cases" / "wordlib"
PACKAGE = "probe_cases.wordlib"


def line(where: str) -> str:
    """The source line a ``probe_cases/wordlib/<file>.py:<n>`` label names."""
    file, number = where.split(":")
    assert file.startswith("probe_cases/wordlib/"), where
    return (LIBRARY / file.rsplit("/", 1)[1]).read_text().splitlines()[int(number) - 1]


def line_of(function, text: str) -> str:
    """``probe_cases/wordlib/<file>.py:<n>`` of the first line of ``function`` that contains ``text``."""
    source, first = inspect.getsourcelines(function)
    number = first + next(i for i, code in enumerate(source) if text in code)
    return f"probe_cases/wordlib/{Path(inspect.getsourcefile(function)).name}:{number}"


# -- 1. a backend failure is no graph break

def _pattern_matcher_fails(graph):
    # inductor's own post-grad hook, raising what piq's KID hit in inductor's pattern matcher
    raise RuntimeError("Not all inputs to pattern found in match.kwargs. Perhaps one of the inputs is unused?")


def whole(x):
    return (x * 2).sin() + 1


def breaks_once(x):
    y = x * 2
    time.perf_counter()  # a call dynamo does not trace: one graph break
    return y.sin()


def _compiled_with_failing_inductor(fn):
    spec = case(fn.__name__, fn, [torch.rand(2, 3)], package="tests")
    with torch._inductor.config.patch(post_grad_custom_post_pass=_pattern_matcher_fails):
        return Measurement(spec, "cpu", 18, library_root(""), dynamic=False).compile()


def test_inductor_failing_on_a_whole_graph_is_a_failure_with_no_break():
    result = _compiled_with_failing_inductor(whole)
    assert (result["status"], result["stage"]) == ("fail", "translate")
    assert result["detail"].startswith("RuntimeError: Not all inputs to pattern found in match.kwargs")
    assert result["graph_breaks"] == 0 and "break_reasons" not in result  # was 1: the failed frame counted


def test_a_real_break_still_counts_when_inductor_fails_after_it():
    result = _compiled_with_failing_inductor(breaks_once)
    assert result["status"] == "fail" and result["graph_breaks"] == 1
    assert result["break_reasons"][0].startswith("calls time.perf_counter")


def test_only_a_dynamo_break_counts_as_the_first_break():
    whole_graph = graph_breaks.CompileRecord(graphs=1)
    assert graph_breaks.count(RuntimeError("inductor raised"), whole_graph) == 0
    assert graph_breaks.reasons(RuntimeError("inductor raised"), whole_graph) == []
    from torch._dynamo.exc import Unsupported

    assert graph_breaks.count(Unsupported("a graph break"), whole_graph) == 1


# -- 2. where: the frame that made the failing call

def test_an_untranslatable_call_in_a_helper_is_located_at_the_helper():
    spec = case("ShuffledMean", ShuffledMean(), [torch.rand(4, 3)], package=PACKAGE, check=False)
    result = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).onnx()
    assert (result["status"], result["stage"]) == ("fail", "translate")
    assert result["detail"] == "no ONNX lowering for torch.randperm"
    # was base.py's forward, which only calls the helper
    assert result["where"] == line_of(kid.shuffled_mean, "torch.randperm(")
    assert "torch.randperm(" in line(result["where"])


# -- 3. a recompilation in words

def _dynamic_compile(fn) -> dict:
    spec = case(fn.__name__, fn, [torch.rand(2, 3, 4)], package=PACKAGE)
    return DynamicBatch(CaseRun(spec, "cpu"), library_root("probe_cases"), 18).probe("compile")


@pytest.fixture(scope="module")
def recompiled() -> dict[str, dict]:
    return {fn.__name__: _dynamic_compile(fn)
            for fn in (fsim.loop_after_break, fsim.size_after_break, fsim.view_after_break)}


def test_a_guard_on_a_tensors_batch_names_the_tensor_dimension_and_line(recompiled):
    result = recompiled["loop_after_break"]
    loop = line_of(fsim.loop_after_break, "for i in range(y.shape[0])")
    assert result["detail"] == (
        "recompiles at batch 3: the guard on `y.shape[0]` failed (compiled for 2), set by "
        f"`return torch.stack([y[i].sum() for i in range(y.shape[0])])` ({loop}), after the graph break at "
        f"{line_of(fsim.loop_after_break, 'time.perf_counter()')}")
    assert (result["status"], result["where"]) == ("static", loop)


def test_a_python_int_guarded_after_a_break_names_its_line_and_no_machine_path(recompiled):
    # dynamo's text: "n == 2  # <line>  # <the path's last characters>:21 in torch_dynamo_resume_in_..."
    result = recompiled["size_after_break"]
    zeros = line_of(fsim.size_after_break, "torch.zeros(n, 1, 1)")
    assert result["detail"] == (
        f"recompiles at batch 3: the guard on `n` failed (compiled for 2), set by `return y + torch.zeros(n, 1, 1)` "
        f"({zeros}), after the graph break at {line_of(fsim.size_after_break, 'time.perf_counter()')}")
    assert result["where"] == zeros
    for detail in (r["detail"] for r in recompiled.values()):
        assert "#" not in detail and "torch_dynamo_resume" not in detail and str(LIBRARY.parent) not in detail
        assert all(part.strip("(),").startswith("probe_cases/") for part in detail.split() if ".py:" in part), detail


def _snapshot(results: dict[str, dict]):
    env = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "cpu", "opset": 18, "probed_at": "2026-11-29"}
    ok = {"status": "ok", "detail": "", "stage": "", "where": ""}
    cases = [{"name": name, "package": PACKAGE, "section": "", "operator": name, "variant": "", "ref": "", "note": "",
              "results": {"cpu": {"onnx": ok, "export": ok,
                                  "compile": dict(ok, status="ok-breaks", detail="1 graph break", graph_breaks=1,
                                                  dynamic=dynamic)}}}
             for name, dynamic in results.items()]
    data, _ = normalise({"schema": 1, "generated_at": "2026-11-29", "complete": True,
                         "library": {"name": "probe_cases", "version": "1", "revision": "abc"},
                         "environments": {"cpu": env}, "cases": cases})
    return build(data, "words.json")


def test_one_recompile_cause_is_one_reason_index_entry(recompiled):
    """Three functions, three variables, three lines, two kinds of guard: one cause (the code after a graph
    break compiled for the traced batch), one entry."""
    index = build_index(build_model(_snapshot(recompiled)))
    assert [(entry.total, len(entry.examples)) for entry in index] == [(3, 3)], [e.text for e in index]
    # grouped by the cause the probe recorded (its class names the entry), each example in its own words
    assert index[0].by_cause and index[0].classes == {"batch-specialised": 3}, index[0]
    assert all(example.startswith("works only at the traced batch size: recompiles at batch 3: the guard on")
               for example in index[0].examples), index[0].examples


# -- 4. one data-dependent branch is one break, however many frames dynamo records it in

def test_one_data_dependent_branch_is_one_graph_break():
    from probe_cases.wordlib.gmsd import CheckedGradientLoss

    spec = case("CheckedGradientLoss", CheckedGradientLoss(), [torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)],
                package=PACKAGE)
    result = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure(["compile"])["compile"]
    assert result["status"] == "ok-breaks"
    assert result["graph_breaks"] == 1, result  # piq's GMSDLoss read "2 breaks"
    assert result["break_reasons"] == ["a Python branch (if / while) tests tensor values at run time"]


def _scaled_if_positive(x, focal):
    """A branch on an input passed straight through (kornia's intrinsics_like: ``if focal <= 0: raise``)."""
    if focal <= 0:
        raise AssertionError(focal)
    return x * focal


def test_a_branch_on_an_input_is_one_graph_break_through_the_probes_wrapper():
    # torch 2.13 records this break in the wrapper's frame ("l_in0_: graph input") and again in the next frame
    # ("l_args_0_"): the probe read 2 breaks where dynamo's explain() and a plain torch.compile see one
    spec = case("_scaled_if_positive", _scaled_if_positive, [torch.rand(2, 3), torch.tensor([0.5])], package=PACKAGE)
    result = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure(["compile"])["compile"]
    assert (result["status"], result["graph_breaks"]) == ("ok-breaks", 1), result
    explained = torch._dynamo.explain(_scaled_if_positive)(torch.rand(2, 3), torch.tensor([0.5]))
    assert explained.graph_break_count == 1


# -- 5. a torch.export bug with the tensors a method's object holds

class _Held:
    """Two tensors held by an object, multiplied by a method with no tensor argument (kornia's Vector3.dot)."""

    def __init__(self):
        self.left, self.right = torch.rand(3), torch.rand(3)

    def product(self):
        return self.left.data.mul(self.right.data)


def test_export_lifting_held_tensors_out_of_order_is_called_a_torch_bug():
    spec = case("_Held.product", _Held().product, [], package=PACKAGE)
    # only torch.export here: this reproducer's ONNX export (which tries the same capture first) crashes the process
    # on torch 2.13, which the probe survives in its workers but pytest would not
    exported = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure(["export"])["export"]
    assert (exported["status"], exported["stage"]) == ("fail", "capture")
    assert exported["detail"].startswith("torch.export bug: its default (non-strict) tracing lifts a tensor")


def _conv_built_per_call(x):
    """A module built inside the call with its weight set through ``.data`` (kornia's sift_describe)."""
    conv = torch.nn.Conv2d(1, 1, 3, bias=False)
    conv.weight.data.copy_(torch.ones(1, 1, 3, 3))
    return conv(x)


def test_a_module_built_inside_the_call_is_said_in_words():
    spec = case("_conv_built_per_call", _conv_built_per_call, [torch.rand(1, 1, 8, 8)], package=PACKAGE)
    exported = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure(["export"])["export"]
    assert (exported["status"], exported["stage"]) == ("fail", "capture")
    assert exported["detail"].startswith("torch.export cannot keep a tensor made while it traced: the function builds")


def _resized_to_a_size_tensor(x, size):
    """A size read from a tensor through NumPy (kornia's ResizePostProcessor: ``size.cpu().long().numpy()``)."""
    return x.reshape(size.long().numpy().tolist())


def test_a_size_read_through_numpy_is_said_in_words():
    spec = case("_resized_to_a_size_tensor", _resized_to_a_size_tensor, [torch.rand(2, 3), torch.tensor([3, 2])],
                package=PACKAGE)
    exported = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure(["export"])["export"]
    assert (exported["status"], exported["stage"]) == ("fail", "capture")
    assert exported["detail"].startswith("reads tensor values into Python through .numpy() during the forward")


def _scaled_and_counted(x):
    """A tensor and Python numbers read from its size (kornia's RANSAC.verify returns a float and an int)."""
    return x * 2, x.shape[0] * 1.5, x.shape[0]


def test_numbers_beside_the_tensors_are_no_outputs_under_capture_either():
    # with a dynamic batch the float and int are symbolic under torch.export; reading them as objects walked the
    # shape environment until "RecursionError: maximum recursion depth exceeded"
    spec = case("_scaled_and_counted", _scaled_and_counted, [torch.rand(2, 3)], package=PACKAGE)
    exported = Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=True).measure(["export"])["export"]
    assert (exported["status"], exported["dynamic"]["status"]) == ("ok", "ok"), exported
