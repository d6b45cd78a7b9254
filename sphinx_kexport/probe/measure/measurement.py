"""Measure one case on one device: the eager reference, then ONNX, torch.export and torch.compile.

Every path starts from fresh copies of the inputs (and of a module target), so
an operator that mutates its inputs or buffers cannot leak state from one path
into the next. A failure is recorded with the stage it happened in, a reason a
user understands and the deepest frame inside the surveyed library.
"""

from __future__ import annotations

import time
import traceback
import warnings
from typing import Any, Callable

import torch

from ...snapshot.causes import settle
from ...snapshot.result_records import dynamic_result, result, skipped_results, speed_record, with_breaks
from ...snapshot.vocabulary import (
    COMPILE,
    DYNAMIC_FAIL,
    EXPORT,
    FAIL,
    MISMATCH,
    NOT_APPLICABLE,
    OK,
    OK_BREAKS,
    OK_UNVERIFIED,
    ONNX,
    PATHS,
    PATH_LABELS,
    STAGE_CAPTURE,
    STAGE_CHECK,
    STAGE_COMPARE,
    STAGE_EAGER,
    STAGE_LOAD,
    STAGE_NO_TENSOR,
    STAGE_RUN,
    STAGE_TRANSLATE,
    SUPPORTED,
    Stage,
)
from ..cases.step import EAGER_STEP, Step
from ..cases.registry import CaseSpec
from . import capture, compare_outputs, graph_breaks, number_outputs, random_draws
from .case_run import CaseRun, one_thread, seeded
from .dynamic_batch import DynamicBatch
from .explain import (RESULT_DIFFERS, UNCLASSIFIED, UNTRACEABLE_PYTHON, clean_line, exception_chain, explain,
                      explain_exception)
from .global_hooks import global_hooks_kept
from .statement_at import add_statements
from .locate import LibraryRoot, deepest_frame, where_call, where_exception
from .speed import SpeedPass
from .onnx_runtime import map_onnx_inputs, onnx_provider, onnx_session, NotSaved, saved_model

MAX_BREAK_REASONS = 5

class LibraryWarnings:
    """Collects the warnings the library itself issues inside the block: (message, its library frame).

    The frame comes from the stack at the moment of the warning, not from the warning's own filename:
    a library warns with ``stacklevel=2``, which points into torch's module call."""

    def __init__(self, root: LibraryRoot):
        self.root = root
        self.found: list[tuple[str, str]] = []
        self._saved = warnings.catch_warnings()

    def __enter__(self) -> LibraryWarnings:
        self._saved.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._show
        return self

    def _show(self, message: Any, category: Any, filename: str, lineno: int, file: Any = None,
              line: Any = None) -> None:
        where = deepest_frame([(f.filename, f.lineno or 0) for f in traceback.extract_stack()], self.root)
        if where:
            self.found.append((str(message), where))

    def __exit__(self, *exc: Any) -> None:
        self._saved.__exit__(*exc)

# --------------------------------------------------------------------------
# the probe

class Measurement:
    def __init__(self, spec: CaseSpec, device: str, opset: int, root: LibraryRoot, dynamic: bool = True,
                 speed: bool = False):
        self.dynamic = dynamic  # also probe each supported path with a dynamic batch (dynamic_batch.py)
        self.speed = speed  # also time each supported path against eager (speed.py)
        # with the speed pass: each supported path's callable at the case's inputs, as its step captured it
        self.captured: dict[str, Callable[[], Any]] = {}
        self.spec = spec
        self.device = device
        self.opset = opset
        self.root = root
        self.run = CaseRun(spec, device)
        self.reference: tuple[Any, ...] = ()  # tensors, or numbers where the call returns no tensor
        self._dynamic: Any = None  # the DynamicBatch pass, made on first use
        self._speed: SpeedPass | None = None  # the speed pass, made on first use

    # -- helpers

    def _failure(self, status: str, stage: str, exc: BaseException, prefix: str = "", **extra: Any) -> dict:
        said = explain(exc)
        return result(status, prefix + said.words, stage, where_exception(exc, self.root), cause=said.cause, **extra)

    def _judge(self, path: str, outputs: list[Any], **extra: Any) -> dict[str, Any]:
        """Compare a path's outputs with eager (stage compare). A random operator is compared in full only
        where the path drew as eager draws (torch.compile under random_draws.drawing_as_eager)."""
        if not self.spec.check and not random_draws.active():
            verdict = compare_outputs.check_random(self.reference, outputs)
            if verdict.same:  # the status says it all (the page's legend explains ok-unverified)
                return result(OK_UNVERIFIED, **extra)
            return result(MISMATCH, "random operator, and even the output count, rank, dtype or finiteness "
                          f"differ from eager: {verdict.detail}", STAGE_COMPARE, cause=RESULT_DIFFERS, **extra)
        verdict = compare_outputs.compare(self.reference, outputs, self.spec.atol, self.spec.rtol)
        if verdict.same:
            return result(OK, **extra)
        drawn = "" if self.spec.check else " (a random operator, drawn as eager draws it: inductor's fallback_random)"
        return result(MISMATCH, f"runs, but the result differs from eager{drawn}: {verdict.detail}", STAGE_COMPARE,
                      max_abs_diff=verdict.max_abs_diff, cause=RESULT_DIFFERS, **extra)

    # -- eager

    def eager(self) -> dict[str, dict[str, Any]] | None:
        """Run the reference; on failure return the n/a record for every path."""
        try:
            wrapper, inputs = self.run.wrapper(), self.run.inputs()
            with one_thread():  # its digest the same whatever the worker's thread count (case_run.one_thread)
                self.reference = number_outputs.detached(seeded(lambda: wrapper(*inputs)))
        except Exception as exc:  # the case itself does not run: nothing to capture
            failed = self._failure(NOT_APPLICABLE, STAGE_EAGER, exc, "does not run eagerly with the probed inputs: ")
            return {path: with_breaks(path, dict(failed)) for path in PATHS}
        if not self.reference:
            na = result(NOT_APPLICABLE, number_outputs.NO_OUTPUT, STAGE_NO_TENSOR)  # it ran: no eager failure
            return {path: with_breaks(path, dict(na)) for path in PATHS}
        return None

    # -- ONNX

    def onnx(self) -> dict[str, Any]:
        wrapper, inputs = self.run.wrapper(), self.run.inputs()
        try:
            with LibraryWarnings(self.root) as caught:
                program = [seeded(lambda: capture.onnx_program(wrapper, inputs, self.opset))]
        except Exception as exc:
            # the exporter wraps torch.export failures in TorchExportError, translation ones in ConversionError
            stage = STAGE_CAPTURE if type(exc).__name__ == "TorchExportError" else STAGE_TRANSLATE
            failed = self._failure(FAIL, stage, exc)
            return dict(failed, where=self._where_call(exc) or failed["where"])
        try:
            with saved_model(program.pop()) as model:
                return self._check_and_run(model, caught)
        except NotSaved as exc:
            return self._failure(FAIL, STAGE_TRANSLATE, exc)

    def _where_call(self, exc: BaseException) -> str:
        """The library line that called the operator the exporter could not translate (locate.where_call)."""
        wrapper, inputs = self.run.wrapper(), self.run.inputs()
        return where_call(exc, self.root, lambda: seeded(lambda: wrapper(*inputs)))

    def _check_and_run(self, model: str, caught: LibraryWarnings) -> dict[str, Any]:
        """The exported model file through onnx.checker and onnxruntime, judged against eager."""
        import onnx
        import onnxruntime

        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as exc:
            return self._failure(FAIL, STAGE_CHECK, exc, "onnx.checker rejects the exported graph: ")
        provider = onnx_provider(self.device, onnxruntime)
        try:
            session, provider = onnx_session(model, self.device, onnxruntime)
        except Exception as exc:
            return self._failure(FAIL, STAGE_LOAD, exc, provider=provider)
        names = [i.name for i in session.get_inputs()]
        feed, folded, problem = map_onnx_inputs(names, self.run.inputs())  # fresh: export saw the others
        if problem:
            return result(FAIL, problem, STAGE_RUN, provider=provider, cause=UNCLASSIFIED)
        try:
            outputs = session.run(None, feed)
        except Exception as exc:
            return self._failure(FAIL, STAGE_RUN, exc, "onnxruntime cannot run the exported graph: ",
                                 provider=provider)
        judged = self._judge(ONNX, list(outputs), provider=provider)
        if self.speed:
            self.captured[ONNX] = lambda: session.run(None, feed)
        if judged["status"] == MISMATCH:
            judged = self._with_library_warning(judged, caught)
        if folded and judged["status"] == OK:
            judged["detail"] = (f"the exporter folded input{'s' if len(folded) > 1 else ''} "
                                f"{', '.join(folded)} into constants: the graph ignores "
                                f"{'them' if len(folded) > 1 else 'it'}")
        return judged

    @staticmethod
    def _with_library_warning(judged: dict[str, Any], caught: LibraryWarnings) -> dict[str, Any]:
        """A mismatch the library announced while it was exported says so: kornia's ResizePostProcessor
        returns its input unchanged when ``torch.onnx.is_in_onnx_export()``, and warns."""
        if not caught.found:
            return judged
        message, where = caught.found[0]
        return dict(judged, detail=f"{judged['detail']}; while it was exported, the library warned: "
                                   f"{clean_line(message)}", where=judged.get("where") or where)

    # -- torch.export

    def export(self) -> dict[str, Any]:
        wrapper, inputs = self.run.wrapper(), self.run.inputs()
        try:
            program = seeded(lambda: capture.exported_program(wrapper, inputs))
        except Exception as exc:
            return self._failure(FAIL, STAGE_CAPTURE, exc)
        try:
            module = program.module()
            outputs = seeded(lambda: module(*self.run.inputs()))
        except Exception as exc:
            return self._failure(FAIL, STAGE_RUN, exc, "the exported program does not run: ")
        if self.speed:
            timed = self.run.inputs()
            self.captured[EXPORT] = lambda: module(*timed)
        return self._judge(EXPORT, list(number_outputs.outputs_or_numbers(outputs)))

    # -- torch.compile

    @random_draws.compiled_as_eager_draws  # a random operator's compiles draw as eager does (random_draws.py)
    def compile(self) -> dict[str, Any]:
        """The compile-first criterion: ``torch.compile(fn, fullgraph=True)`` decides the status (``ok`` when it
        compiles one graph with the default backend and matches eager); the default compile's breaks stay on the
        record as a fact. Only where fullgraph=True fails does the default compile's run decide (``ok-breaks``
        when it runs and matches).

        The status's compile comes first and is also the first-break pass: dynamo's error before inductor
        is handed a graph is the first break (graph_breaks.py); its compiled function is the one the speed
        pass times, kept from dynamo's reset where the default compile's record needs no trace."""
        try:
            torch._dynamo.reset()
            compiled, handed = capture.fullgraph_watched(self.run.wrapper())
            inputs = self.run.inputs()
            try:
                outputs = seeded(lambda: compiled(*inputs))
            except Exception as exc:
                torch._dynamo.reset()
                if not handed.graphs:  # dynamo stopped at its first break: fullgraph=True fails there
                    return self._default_compile(exc, None)
                # inductor rejected the graph, or the compiled call failed: whether dynamo captures the call
                # whole, the trace-only pass says (a rejection), else its error is the first break
                first, whole = graph_breaks.first_break(self.run.wrapper(), self.run.inputs(), seeded)
                return self._default_compile(None, exc) if whole else self._default_compile(first, None)
            judged = self._judge(COMPILE, list(outputs), fullgraph=True)
            default = graph_breaks.default_record_of(handed)
            if self.speed:  # timed before dynamo is reset (measure() resets it after the speed pass)
                timed = self.run.inputs()
                self.captured[COMPILE] = lambda: compiled(*timed)
            if default is None:  # a trace says (dynamo's reset: the speed pass compiles again on its first call)
                default = graph_breaks.default_compile_traced(self.run.wrapper(), self.run.inputs(), seeded)
            return self._with_default_breaks(judged, default)
        finally:
            if COMPILE not in self.captured:
                torch._dynamo.reset()

    def _with_default_breaks(self, judged: dict[str, Any], default: graph_breaks.CompileRecord) -> dict[str, Any]:
        """A fullgraph=True result with what the default compile does: its breaks (count, reasons, skipped
        functions), the graphs it compiles, and the dynamo setting that removes its breaks, where one does."""
        extra = self._break_fields(None, default)
        judged.update(extra, graphs=default.graphs)
        if not (extra["graph_breaks"] or extra.get("skipped_functions")):
            return judged
        setting = graph_breaks.setting_removing_breaks(self.run.wrapper(), self.run.inputs(), seeded)
        if setting:
            judged["breaks_removed_by"] = setting
        if judged["status"] in SUPPORTED:
            judged["detail"] = graph_breaks.default_breaks_summary(
                extra["graph_breaks"], extra.get("break_reasons", []), extra.get("skipped_functions", []),
                default.graphs, setting)
        return judged

    def _default_compile(self, first: BaseException | None, rejected: BaseException | None) -> dict[str, Any]:
        """fullgraph=True failed (``first``: dynamo's first break; ``rejected``: inductor rejected the whole
        graph): the default compile's run, breaks and outputs decide."""
        graph_breaks.start_recording()
        compiled = capture.compiled(self.run.wrapper(), fullgraph=False)
        inputs = self.run.inputs()
        try:
            outputs = seeded(lambda: compiled(*inputs))
        except Exception as exc:
            record = graph_breaks.recorded(raised_compiling=compile_stage(exc) != STAGE_RUN)
            extra = self._break_fields(first, record)
            return self._failure(FAIL, compile_stage(exc), exc, fullgraph=False, graphs=record.graphs, **extra)
        record = graph_breaks.recorded()
        if first is None and (record.messages or record.graphs != 1 or record.skipped_frames):
            first = graph_breaks.locate_ordinary_break(self.run.wrapper(), self.run.inputs(), seeded)
        explained = graph_breaks.explained_reasons(first, record)
        extra = self._break_fields(first, record, explained)
        judged = self._judge(COMPILE, list(outputs), fullgraph=False, graphs=record.graphs, **extra)
        if self.speed:  # timed before dynamo is reset (measure() resets it after the speed pass)
            timed = self.run.inputs()
            self.captured[COMPILE] = lambda: compiled(*timed)
        breaks, reasons = extra["graph_breaks"], extra.get("break_reasons", [])
        skipped = extra.get("skipped_functions", [])
        if judged["status"] not in (OK, OK_UNVERIFIED):
            return judged
        parts = []
        rejected_said = explain(rejected) if rejected is not None else None
        if breaks:
            reason = (reasons[0] if reasons else f"the call of {skipped[0]} splits the graph" if skipped
                      else "dynamo records no reason")
            if record.graphs == 0:
                part = f"dynamo compiled no graph: the whole function runs eagerly ({reason}"
                if record.skipped_frames:
                    part += "; dynamo cannot resume after this break there, e.g. inside a try block or a loop"
                parts.append(part + ")")
            else:
                parts.append(f"{breaks} graph break{'s' if breaks > 1 else ''}: {reason}")
        if skipped:
            parts.append(graph_breaks.skipped_summary(skipped, breaks))
        if rejected_said is not None:
            parts.append("with fullgraph=True dynamo captures it as one graph, but inductor (the default "
                         f"backend) rejects that graph: {rejected_said.words}")
        first_said = explain(first) if first is not None and not (breaks or skipped or rejected_said) else None
        if not parts:  # fullgraph=True failed at something the default compile neither breaks at nor skips
            why = first_said.words if first_said is not None else "dynamo records no reason"
            parts.append(f"torch.compile(fn, fullgraph=True) fails: {why}")
        # the cause is the first part's: the first break's, else the skipped call's, else what fullgraph=True met
        if breaks and explained:
            cause = explained[0].cause
        elif skipped:
            cause = UNTRACEABLE_PYTHON
        elif breaks:
            cause = UNCLASSIFIED
        else:
            said = rejected_said or first_said
            cause = said.cause if said is not None else UNCLASSIFIED
        judged.update(detail="; ".join(parts), where=self._where(first) or judged["where"], cause=cause)
        if judged["status"] == OK:
            judged["status"] = OK_BREAKS
        return judged

    def _where(self, exc: BaseException | None) -> str:
        return where_exception(exc, self.root) if exc is not None else ""

    def _break_fields(self, first: BaseException | None, record: graph_breaks.CompileRecord,
                      explained: list[graph_breaks.Explained] | None = None) -> dict[str, Any]:
        """The record's break fields; ``explained``: the reasons, when the caller explained them already."""
        if explained is None:
            explained = graph_breaks.explained_reasons(first, record)
        reasons = [said.words for said in explained]
        extra: dict[str, Any] = {"graph_breaks": graph_breaks.count(first, record)}
        if reasons:
            extra["break_reasons"] = reasons[:MAX_BREAK_REASONS]
        skipped = graph_breaks.skipped_functions(first, record)
        if skipped:
            extra["skipped_functions"] = skipped[:MAX_BREAK_REASONS]
        return extra

    def measure(self, paths: tuple[str, ...] | list[str] = PATHS,
                started: Callable[[Step], None] | None = None,
                finished: Callable[[str, dict[str, Any]], None] | None = None,
                ran_eagerly: Callable[[tuple[Any, ...]], None] | None = None) -> dict[str, dict[str, Any]]:
        """Measure ``paths`` (eager first); ``started``/``finished`` report progress as it happens,
        so that a crash later in the case does not lose the paths already measured; ``ran_eagerly`` gets the
        eager reference (tensors, or numbers) once it ran and returned one."""
        started = started or (lambda step: None)
        finished = finished or (lambda path, result: None)
        out: dict[str, dict[str, Any]] = {}
        if self.spec.skip:
            out = {path: skipped_results(self.spec.skip or "")[path] for path in paths}
        else:
            started(EAGER_STEP)
            with global_hooks_kept():
                failed = self.eager()
            self.run.release()
            if not failed and ran_eagerly is not None:
                ran_eagerly(self.reference)
            if failed:
                out = {path: failed[path] for path in paths}
        if out:
            for path, res in out.items():
                finished(path, add_statements(settle(res, path), self.root))
            return out
        for path in paths:
            started(Step(path))
            began = time.perf_counter()
            try:
                with global_hooks_kept():  # each path as the process was, whatever the one before left behind
                    out[path] = getattr(self, path)()
                if number_outputs.numbers_only(self.reference):  # a path that cannot capture a number says so
                    out[path] = number_outputs.not_probed(PATH_LABELS[path], out[path])
            except Exception as exc:  # a bug outside the staged steps; still a fact about this case
                out[path] = self._failure(FAIL, STAGE_RUN, exc)
            out[path]["seconds"] = round(time.perf_counter() - began, 3)
            add_statements(settle(out[path], path), self.root)
            finished(path, out[path])
            if self.speed:
                self._speed_pass(path, out[path], started, finished)
            self.run.release()
            if self.dynamic:
                self._dynamic_batch(path, out[path], started, finished)
                self.run.release()
        return out

    def _speed_pass(self, path: str, static: dict[str, Any], started: Callable[[Step], None],
                    finished: Callable[[str, dict[str, Any]], None]) -> None:
        """Add the ``speed`` record to a supported ``static`` result (reported again as finished); then let go
        of what the path captured (dynamo is reset after torch.compile's)."""
        captured = self.captured.pop(path, None)
        try:
            if static.get("status") not in SUPPORTED or captured is None:
                return
            if self._speed is None:
                self._speed = SpeedPass(self.run, self.opset)
            started(Step(path, speed=True))
            try:
                with global_hooks_kept():
                    # compile's timed at the larger size as its status was decided (the record's fullgraph)
                    static["speed"] = self._speed.measure(path, captured, bool(static.get("fullgraph")))
            except Exception as exc:  # a bug in the pass: said in the speed record, the result stays as is
                static["speed"] = speed_record(torch.get_num_threads(), [],
                                               f"the speed pass failed: {explain_exception(exc)}")
            finished(path, static)
        finally:
            del captured
            if path == COMPILE:
                torch._dynamo.reset()

    def _dynamic_batch(self, path: str, static: dict[str, Any], started: Callable[[Step], None],
                       finished: Callable[[str, dict[str, Any]], None]) -> None:
        """Add the ``dynamic`` result to ``static`` (reported again as finished) when the pass applies.

        The static result was reported first: a crash from here on costs the dynamic result only."""
        if not DynamicBatch.applies(static):
            return
        if self._dynamic is None:
            self._dynamic = DynamicBatch(self.run, self.root, self.opset)
        started(Step(path, dynamic=True))
        self._dynamic.fullgraph = bool(static.get("fullgraph"))
        try:
            with global_hooks_kept():
                static["dynamic"] = self._dynamic.probe(path)
        except Exception as exc:  # a bug in the pass: said in the dynamic result, the static one stays as is
            said = explain(exc)
            static["dynamic"] = dynamic_result(DYNAMIC_FAIL, f"the dynamic-batch pass failed: {said.words}",
                                               cause=said.cause)
        finished(path, add_statements(settle(static, path), self.root))

def compile_stage(exc: BaseException) -> Stage:
    """Which part of torch.compile raised: dynamo's capture, inductor's translation, or the run."""
    names = {type(e).__name__ for e in exception_chain(exc)}
    modules = {type(e).__module__ for e in exception_chain(exc)}
    if names & {"BackendCompilerFailed", "InductorError", "LoweringException", "CppCompileError",
                "CompilationError"}:
        return STAGE_TRANSLATE
    if any(m.startswith("torch._dynamo") for m in modules) or names & {"Unsupported", "UserError",
                                                                          "TorchRuntimeError"}:
        return STAGE_CAPTURE
    return STAGE_RUN

