"""Fast checks of the probe's pure parts: reasons, output comparison, fingerprints, comparison of snapshots."""

from __future__ import annotations

import copy

import pytest

from sphinx_kexport.snapshot.diff import Change, classify, compare, count, regressed
from sphinx_kexport.probe.measure.explain import clean_line, explain_text, known_cause, torch_name

pytestmark = pytest.mark.probe


def test_aten_names_become_public_torch_names():
    assert torch_name("_linalg_svd") == "torch.linalg.svd"
    assert torch_name("linalg_inv_ex") == "torch.linalg.inv"
    assert torch_name("aten.nonzero.default") == "torch.nonzero"
    assert known_cause("No ONNX function found for <OpOverload(op='aten.histc', overload='default')>") == \
        "no ONNX lowering for torch.histc"


def test_unmatched_overload_names_the_torch_operator():
    # seen on kornia RandomErasing[random]: clamp(1.0, height) with a size-derived bound
    raw = ("RuntimeError: Cannot find a compatible OpOverload for aten.clamp with the provided arguments. "
           "Tried overloads ['clamp.default', 'clamp.Tensor']")
    reason = known_cause(raw)
    assert reason.startswith("the ONNX exporter finds no ONNX overload of torch.clamp")
    assert "OpOverload" not in reason


def test_fallback_reason_is_one_clean_line():
    raw = ("RuntimeError: something odd in /usr/lib/python3.11/site-packages/torch/_ops.py:123 at 0x7f00deadbeef\n"
           "  File \"/x/torch/fx/graph.py\", line 3\nmore")
    line = clean_line(raw)
    assert "\n" not in line and "site-packages" not in line and "0x7f" not in line
    assert line.startswith("RuntimeError: something odd")
    assert len(clean_line("x" * 500)) <= 160


def test_a_backend_failure_is_told_by_inductors_own_error():
    """dynamo raises BackendCompilerFailed from None; the real error is its inner exception (piq's KID read
    "BackendCompilerFailed: backend='inductor' raised")."""
    exc_module = pytest.importorskip("torch._dynamo.exc")
    from sphinx_kexport.probe.measure.explain import explain_exception
    from sphinx_kexport.probe.measure.measurement import compile_stage

    def inductor():
        pass

    inner = RuntimeError("Not all inputs to pattern found in match.kwargs. Perhaps one of the inputs is unused?")
    try:
        raise exc_module.BackendCompilerFailed(inductor, inner, None) from None
    except exc_module.BackendCompilerFailed as failed:
        assert explain_exception(failed).startswith("RuntimeError: Not all inputs to pattern found in match.kwargs")
        assert compile_stage(failed) == "translate"


def test_onnx_checker_and_onnxruntime_messages_are_put_in_words():
    # texts as onnx 1.23 and onnxruntime 1.32 raise them
    shape = ("InferenceError: [ShapeInferenceError] Inference error(s): (op_type:MaxPool, node name: "
             "node_max_pool2d): [ShapeInferenceError] Inferred shape and existing shape differ in dimension 2: "
             "(4) vs (3)\n")
    assert known_cause(shape) == ("ONNX shape inference disagrees with torch on the output shape of MaxPool "
                                  "(dimension 2: ONNX 4, torch 3)")
    dtype = ("InferenceError: [ShapeInferenceError] (op_type:TopK, node name: node_sort__1): X typestr: T, "
             "has unsupported type: tensor(bool)")
    assert known_cause(dtype) == "ONNX TopK does not accept bool tensors, yet the exporter emits it with one"
    memory = ("Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Expand node. "
              "Name:'node_expand' Status Message: /onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:360 "
              "void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*) Failed to "
              "allocate memory for requested buffer of size 18014398509481984\n")
    assert known_cause(memory).startswith("cannot allocate 16 PiB for ONNX Expand")
    reshape = ("Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Reshape node. "
               "Name:'n' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:47"
               " onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, "
               "onnxruntime::TensorShapeVector&, bool) input_shape_size == size was false. The input tensor "
               "cannot be reshaped to the requested shape.\n")
    reason = known_cause(reshape)
    assert reason.startswith("ONNX Reshape fails: input_shape_size == size was false. The input tensor cannot")
    assert "onnxruntime_src" not in reason and "ReshapeHelper" not in reason


def test_dynamo_break_reasons_are_classified():
    assert "branch" in explain_text("Data-dependent branching\n  Explanation: Detected ...")
    assert explain_text("Dynamic shape operator\n  Explanation: Operator `aten.nonzero.default`'s output shape "
                        "depends on input Tensor data.") == "the output shape depends on tensor values (torch.nonzero)"
    assert explain_text("TorchRuntimeError: RuntimeError when making fake tensor call: Dynamo failed to run FX node "
                        "with fake tensors: call_function <built-in method rand of type object>(*(s56, 4), **{}): "
                        "got RuntimeError(...)") == ("torch.compile's tracer fails to run torch.rand on the traced "
                                                     "(fake) tensors here; the same call runs eagerly")


def test_output_comparison_rules():
    import torch

    from sphinx_kexport.probe.measure.compare_outputs import check_random, compare as close

    a = torch.tensor([1.0, float("nan"), 3.0])
    assert close((a,), [a.clone()], 2e-4, 1e-3).same  # NaN in the same place is equal
    moved = close((a,), [torch.tensor([float("nan"), 2.0, 3.0])], 2e-4, 1e-3)
    assert not moved.same and "NaN" in moved.detail
    far = close((a,), [torch.tensor([1.5, float("nan"), 3.0])], 2e-4, 1e-3)
    assert not far.same and far.max_abs_diff == pytest.approx(0.5)
    assert not close((a,), [a.reshape(1, 3)], 2e-4, 1e-3).same  # shapes must be identical
    flags = torch.tensor([True, False])
    assert "booleans differ" in close((flags,), [~flags], 1.0, 1.0).detail  # no tolerance for bools
    assert not close((a,), [a, a], 2e-4, 1e-3).same  # output count
    noisy = check_random((torch.zeros(2),), [torch.tensor([1.0, float("inf")])])
    assert not noisy.same and "non-finite" in noisy.detail
    # a random operator's sizes may be drawn (an edge dropout): not compared; its rank and dtype are
    assert check_random((torch.zeros(2, 5),), [torch.ones(0, 5)]).same
    assert "2 dimensions, eager 1" in check_random((torch.zeros(2),), [torch.ones(2, 1)]).detail
    assert "dtype int32, eager int64" in check_random((torch.zeros(2, dtype=torch.int64),),
                                                      [torch.zeros(2, dtype=torch.int32)]).detail
    assert check_random((7,), [torch.tensor(3).numpy()]).same  # a number: its kind, as ONNX returns it
    # a complex output comes back from onnxruntime as a real pair (kornia's So2.random): the same shape, checked or not
    z = torch.polar(torch.ones(3), torch.tensor([0.1, 0.2, 0.3]))
    pair = torch.view_as_real(z).numpy()
    assert close((z,), [pair], 2e-4, 1e-3).same and check_random((z,), [pair]).same
    assert check_random((z,), [pair[:2]]).same and not check_random((z,), [pair[0]]).same


def test_fingerprint_follows_the_case_definition():
    import torch

    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint

    tools = {"torch": "x"}
    torch.manual_seed(0)
    base = case("a", torch.clamp, [torch.rand(2)], {"min": 0.1}, package="p")
    same = case("a", torch.clamp, [base.inputs[0].clone()], {"min": 0.1}, package="p")
    key = fingerprint(case_definition(base), "cpu", 18, "1.0", tools)
    assert key == fingerprint(case_definition(same), "cpu", 18, "1.0", tools)
    assert key != fingerprint(case_definition(base), "cuda", 18, "1.0", tools)
    assert key != fingerprint(case_definition(base), "cpu", 17, "1.0", tools)
    assert key != fingerprint(case_definition(base), "cpu", 18, "1.1", tools)
    assert key != fingerprint(case_definition(base), "cpu", 18, "1.0", {"torch": "y"})
    changed = [case("a", torch.clamp, [torch.rand(2)], {"min": 0.1}, package="p"),
               case("a", torch.clamp, [base.inputs[0]], {"min": 0.2}, package="p"),
               case("a", torch.clamp, [base.inputs[0]], {"min": 0.1}, package="p", atol=1e-6),
               case("a", torch.clamp, [base.inputs[0]], {"min": 0.1}, package="p", check=False),
               case("a", torch.clip, [base.inputs[0]], {"min": 0.1}, package="p")]
    for other in changed:
        assert fingerprint(case_definition(other), "cpu", 18, "1.0", tools) != key


def test_an_element_sliced_out_of_a_row_gets_the_fingerprint_of_its_copy():
    import torch

    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.cases.fingerprint import case_definition

    row = torch.tensor([[0.25, 0.5, 0.75]])
    sliced = row[:, 0]  # shape (1,), contiguous, stride 3: kornia's tests pass such inputs
    assert sliced.is_contiguous() and sliced.stride() == (3,)
    definition = case_definition(case("a", torch.neg, [sliced], package="p"))
    assert definition == case_definition(case("a", torch.neg, [torch.tensor([0.25])], package="p"))


def test_the_cases_the_probe_cannot_describe_are_all_named_in_a_load_error(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from sphinx_kexport.probe.cases import describe
    from sphinx_kexport.probe.cases.inventory import LoadError, Source

    (tmp_path / "three_cases.py").write_text(
        "import torch\nfrom sphinx_kexport.probe import case\n"
        "CASES = [case('first', torch.neg, [torch.ones(2)], package='p'),\n"
        "         case('second', torch.abs, [torch.ones(2)], package='p'),\n"
        "         case('third', torch.sin, [torch.ones(2)], package='p')]\n")

    def refuse(spec):
        if spec.name != "first":
            raise RuntimeError("not like this")
        return {}

    monkeypatch.setattr(describe, "case_definition", refuse)
    with pytest.raises(LoadError, match=r"three_cases.py: the probe failed to describe 2 cases: case 'second' "
                                        r"\(RuntimeError: not like this\); case 'third' \(RuntimeError: not like "
                                        r"this\)\. This is a bug in sphinx-kexport"):
        describe.describe_module(Source("three_cases", str(tmp_path), "three_cases.py"))


def _snapshot(statuses: dict[str, str], breaks: int = 0) -> dict:
    results = {p: {"status": s, "detail": "", "stage": "", "where": ""} for p, s in statuses.items()}
    results["compile"]["graph_breaks"] = breaks
    return {"environments": {"cpu": {}}, "cases": [{"name": "op", "results": {"cpu": results}}]}


def test_compare_ranks_regressions_fixes_and_changes():
    old = _snapshot({"onnx": "ok", "export": "fail", "compile": "ok-breaks"}, breaks=1)
    new = _snapshot({"onnx": "mismatch", "export": "ok", "compile": "ok-breaks"}, breaks=2)
    changes = compare(old, new)
    kinds = {c.path: c.kind for c in changes}
    assert kinds == {"onnx": "regressed", "export": "fixed", "compile": "changed"}
    assert regressed(changes) and count(changes) == {"regressed": 1, "fixed": 1, "changed": 1}
    assert compare(old, copy.deepcopy(old)) == []
    assert classify("n/a", "fail") == "changed" and classify("ok", "n/a") == "changed"
    assert classify("fail", "mismatch") == "changed" and classify("ok-unverified", "fail") == "regressed"
    gone = compare(old, {"environments": {"cpu": {}}, "cases": []})
    assert {c.new_status for c in gone} == {None} and not regressed(gone)
    assert isinstance(changes[0], Change) and "op [cpu] ONNX: ok -> mismatch" in changes[0].describe()


def test_progress_draws_a_bar_on_a_terminal_and_lines_elsewhere():
    import io

    from sphinx_kexport.probe.run.progress import Progress, summary_table

    results = {"onnx": {"status": "fail"}, "export": {"status": "ok"},
               "compile": {"status": "ok-breaks", "graph_breaks": 2}}
    terminal = io.StringIO()
    bar = Progress(4, stream=terminal, interactive=True)
    bar.started("a", "cpu")
    bar.finished("a", "cpu", results, 1.0)
    bar.finished("b", "cpu", results, 1.0)
    bar.close()
    drawn = terminal.getvalue()
    assert "\r" in drawn and "2/4" in drawn and "left" in drawn and "fail 2" in drawn and "breaks 2" in drawn
    log = io.StringIO()
    plain = Progress(2, stream=log, interactive=False)
    plain.finished("a", "cpu", results, 1.0)
    assert "\r" not in log.getvalue() and "ok-breaks(2)" in log.getvalue() and log.getvalue().count("\n") == 1
    table = summary_table([{"name": "a", "results": {"cpu": results}}], ["cpu"])
    assert "torch.compile" in table and "cpu (1 cases)" in table


def test_the_example_time_limit_counts_cpu_time_and_still_stops_a_hang():
    """What discovery finds must not depend on how busy the machine is: the limit is the example's CPU time;
    an example that only waits is stopped at HANG_FACTOR times the limit in wall time."""
    import time

    from sphinx_kexport.probe.discover.sandbox import HANG_FACTOR, ExampleTimeout, time_limit

    began = time.process_time()
    with pytest.raises(ExampleTimeout, match="ran past the 0.3 s limit"):
        with time_limit(0.3):
            while True:  # computing: stopped by its CPU time
                pass
    # the kernel's profiling timer and process_time() account CPU apart: on two cores busy with a survey and
    # the rest of this suite the timer fired after 0.24 s of process_time (4 December); the message above
    # says which guard stopped it
    assert 0.15 <= time.process_time() - began < 2
    began = time.monotonic()
    with pytest.raises(ExampleTimeout, match="waited past"):
        with time_limit(0.2):
            time.sleep(5)  # waiting uses no CPU: stopped by the wall-time guard (a finished sleep raises nothing)
    assert time.monotonic() - began >= 0.2 * HANG_FACTOR - 0.05  # not before its wall period


def test_a_baked_tensor_or_module_gets_one_fingerprint_whatever_print_options_the_process_has():
    """kornia's ``tests/geometry/test_conversions.py`` sets ``torch.set_printoptions(precision=10)`` for the whole
    process: the inventory's child, which ran that test, printed ``q0.slerp(q1, 0.3)``'s baked ``q1`` with ten
    digits, the worker with four, and refused the case as another one."""
    import torch

    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.cases.fingerprint import case_definition

    class Held(torch.nn.Module):  # prints its tensor, as kornia's Quaternion does
        def __init__(self, q):
            super().__init__()
            self.q = torch.nn.Parameter(q)

        def __repr__(self):
            return f"Held({self.q!r})"

    q = torch.tensor([0.123456789, 0.2])
    spec = case("a", torch.add, [torch.ones(2)], {"other": q}, package="p")
    held = case("b", Held(q), [], package="p")
    before = case_definition(spec), case_definition(held)
    try:
        torch.set_printoptions(precision=10, sci_mode=True)
        assert (case_definition(spec), case_definition(held)) == before
        assert torch._tensor_str.PRINT_OPTS.precision == 10  # the process's own options are left as they were
    finally:
        torch.set_printoptions(profile="default")


def _dump(*files: str) -> str:
    """A faulthandler stack dump of ``files``, innermost first, after an earlier dump that must not count."""
    earlier = 'Current thread 0x1 (most recent call first):\n  File "/lib/torch/onnx/_export.py", line 3 in f\n'
    return earlier + "Current thread 0x2 (most recent call first):\n" + "".join(
        f'  File "{file}", line {n} in f\n' for n, file in enumerate(files, 1))


def test_what_a_hung_step_was_busy_with_is_the_innermost_tool_or_nothing_under_a_library_line(tmp_path):
    from sphinx_kexport.probe.measure.busy_with import busy_with
    from sphinx_kexport.probe.measure.locate import LibraryRoot

    library = tmp_path / "lib"
    root = LibraryRoot("lib", str(library), str(tmp_path))
    site = "/venv/lib/python3.11/site-packages"
    lowering = _dump(f"{site}/torch/utils/_pytree.py", f"{site}/torch/_inductor/lowering.py",
                     f"{site}/torch/_dynamo/output_graph.py", str(library / "ops.py"))
    assert busy_with(lowering, root).startswith("inductor was still turning the captured graph into code")
    compiled = _dump("/tmp/torchinductor_me/xy/cxy.py", f"{site}/torch/_inductor/output_code.py",
                     f"{site}/torch/_dynamo/eval_frame.py")
    assert busy_with(compiled, root) == "the compiled code was running"
    ort = _dump(f"{site}/onnxruntime/capi/onnxruntime_inference_collection.py", f"{site}/torch/onnx/_x.py")
    assert busy_with(ort, root) == "onnxruntime was still loading or running the exported model"
    # the library's own line innermost: `where` names it, nothing is added; no dump at all: nothing known
    assert busy_with(_dump(str(library / "ops.py"), f"{site}/torch/_dynamo/eval_frame.py"), root) == ""
    assert busy_with("Fatal Python error: Aborted\n", root) == ""


def test_torch_2_9s_exporter_on_a_while_loop_condition_is_worded():
    # the chain torch 2.9.1's dynamo ONNX exporter raised for kornia's canny(hysteresis=True) (a plain script)
    chain = ("ConversionError: Failed to convert the exported program to an ONNX model.\n"
             "ConversionError: Error when translating node return any_1. See the stack trace for more information.\n"
             "TypeError: 'Node' object is not iterable")
    assert known_cause(chain).startswith("the ONNX exporter of this torch cannot translate a control-flow subgraph")


def test_torch_2_9s_tracer_on_an_index_read_from_tensor_values_is_worded():
    # the chain torch 2.9.1's torch.compile raised for kornia's PatchMix.apply_transform (a plain script; it
    # fell through to this raw text before, and 2.13.0 runs the same call)
    chain = ("TorchRuntimeError: Dynamo failed to run FX node with fake tensors: call_function <built-in function "
             "getitem>(*(FakeTensor(..., size=(4, 3, 32, 32)), (u0, slice(None, None, None), slice(u5, u5 + 8, None), "
             "slice(u4, u4 + 8, None))), **{}): got IndexError('only integers, slices (`:`), ellipsis (`...`), None "
             "and long or byte Variables are valid indices (got SymInt)')\n"
             "IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
             "indices (got SymInt)")
    assert known_cause(chain).startswith("indexes a tensor at a position read from tensor values at run time")
    # an op that fails on fake tensors for another reason keeps the generic wording
    other = "TorchRuntimeError: Dynamo failed to run FX node with fake tensors: call_function <built-in method rand>"
    assert known_cause(other).startswith("torch.compile's tracer fails to run torch.rand")


def test_torch_2_9s_skipped_inlining_is_worded_without_the_machines_path():
    # torch 2.9.1's graph-break reasons for kornia's AutoAugment example (a plain script's counter): no reason
    # after the colon, and the file "" the raw text showed once its machine path was cut out
    site = "/root/venv/lib/python3.11/site-packages"
    method = (f'SKIPPED INLINING <code object forward_parameters at 0x7f0559f4c1d0, file '
              f'"{site}/kornia/augmentation/auto/base.py", line 201>: ')
    listcomp = f'SKIPPED INLINING <code object <listcomp> at 0x7f0559ef8470, file "{site}/kornia/x/image.py", line 294>: '
    assert known_cause(method) == ("dynamo gives up tracing into forward_parameters() "
                                   "(kornia/augmentation/auto/base.py:201) and runs it outside the graph "
                                   "(dynamo's 'SKIPPED INLINING', which gives no reason)")
    assert known_cause(listcomp).startswith("dynamo gives up tracing into a list comprehension (kornia/x/image.py:294)")
    assert "/root" not in known_cause(method) + known_cause(listcomp)


def test_a_skipped_frame_in_a_checkout_is_named_from_its_package_not_its_file_alone(tmp_path):
    # a maintainer surveys an editable checkout: no site-packages in the path, the package folders tell
    source = tmp_path / "src" / "kornia" / "augmentation" / "auto"
    source.mkdir(parents=True)
    for folder in (source, source.parent, source.parent.parent):
        (folder / "__init__.py").write_text("")
    (source / "base.py").write_text("")
    (tmp_path / "script.py").write_text("")
    raw = 'SKIPPED INLINING <code object forward_parameters at 0x7f0559f4c1d0, file "{}", line 201>: '
    in_checkout = known_cause(raw.format(source / "base.py"))
    assert "(kornia/augmentation/auto/base.py:201)" in in_checkout
    assert str(tmp_path) not in in_checkout
    # a module outside any package, and a path from another machine, keep only the file's name
    assert "(script.py:201)" in known_cause(raw.format(tmp_path / "script.py"))
    assert "(base.py:201)" in known_cause(raw.format("/elsewhere/kornia/augmentation/auto/base.py"))


def test_torch_2_9s_exporter_type_promotion_assertion_is_worded():
    # the ONNX path's record of kornia's XFeat.detectAndCompute under torch 2.9.1 (raw text before)
    chain = ("AssertionError: node.meta['val'].dtype(torch.int64) does not agree with type promotion "
             "rule(torch.float32).")
    assert known_cause(chain) == ("exporter bug: its type-promotion pass expects float32 where the traced graph "
                                  "holds int64 (the eager result is correct)")


def test_probe_processes_let_waiting_openmp_threads_sleep_unless_the_user_chose(monkeypatch):
    """An example's time limit is CPU time; OpenMP threads spinning while they wait would spend it on a busy
    machine (kornia's SOLD2_detector example lost its case that way). A policy the user set is kept."""
    import os

    from sphinx_kexport.probe.run.settings import limit_threads

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("TORCHINDUCTOR_COMPILE_THREADS", raising=False)  # set too; put back afterwards
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    limit_threads(1)
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE" and os.environ["OMP_NUM_THREADS"] == "7"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    limit_threads(1)
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_an_example_that_computes_on_a_starved_core_is_judged_by_its_cpu_time(monkeypatch):
    """A wall-time period that ends while the example is still computing (a busy machine gives it a fraction
    of a core) is not a hang: the example gets another, and its CPU limit stops it. One that waits is stopped
    at the end of the first. Here the period is shorter than the CPU limit, as starvation makes it."""
    import time

    from sphinx_kexport.probe.discover import sandbox
    from sphinx_kexport.probe.discover.sandbox import ExampleTimeout, time_limit

    monkeypatch.setattr(sandbox, "HANG_FACTOR", 0.25)  # wall periods of 0.1 s against 0.4 s of CPU
    began = time.process_time()
    with pytest.raises(ExampleTimeout, match=r"^ran past the 0.4 s limit$"):
        with time_limit(0.4):
            while True:
                pass
    assert time.process_time() - began >= 0.3  # it ran through several periods
    began = time.monotonic()
    with pytest.raises(ExampleTimeout, match=r"^waited past 0.1 s without using its 0.4 s of CPU time$"):
        with time_limit(0.4):
            time.sleep(5)  # raised: stopped inside the sleep, not at its end
    assert time.monotonic() - began >= 0.1 - 0.05  # not before its wall period


def test_torch_2_15s_new_graph_break_wordings_are_worded():
    # the raw reasons torch 2.15.0's dynamo and inductor gave in the kornia survey (shards 1 to 7), which
    # fell through to raw text before: the same breaks torch 2.13.0 names in words the rules above know
    c_next = ("C-implemented special method without VariableTracker model: 'list_iterator' implements '__next__' in C "
              "and Dynamo has no model for it.")
    assert known_cause(c_next) == "calls next() on a Python list iterator, which dynamo cannot trace"
    # torch 2.13's wording of it, the rule's other half
    assert known_cause("Dynamo does not support next() on list_iterator") == known_cause(c_next)
    c_other = "C-implemented special method without VariableTracker model: 'deque' implements '__len__' in C and Dynamo"\
              " has no model for it."
    assert known_cause(c_other) == "uses deque.__len__, which is written in C and which dynamo cannot trace"
    sourceless = ("Unexpected type in sourceless builder: SourcelessBuilder.create does not know how to wrap "
                  "<class 'kornia.augmentation.container.patch.PatchSequential'>")
    assert known_cause(sourceless).startswith("meets a PatchSequential object it cannot trace back to where it came")
    lowering = "InductorError: LoweringException: AssertionError: expected: stride is not None\n  target: aten.index_put"
    assert known_cause(lowering) == ("inductor bug in this torch version (lowering the captured graph fails: "
                                     "AssertionError: expected: stride is not None)")
    assert known_cause("LoweringException: AssertionError") == (
        "inductor bug in this torch version (lowering the captured graph fails: AssertionError)")
