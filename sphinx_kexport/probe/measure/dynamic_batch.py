"""The dynamic-batch pass: does a path's capture still hold at another batch size?

A path whose static result is supported is captured a second time with the
case's batch dimension dynamic, at a traced batch of at least 2 (inputs
registered at batch 1 are repeated along it), then run at the traced batch
plus one and compared with eager at that size:

* ONNX: ``torch.onnx.export(dynamo=True, dynamic_shapes=Dim.DYNAMIC)``, run in
  onnxruntime at the other size (the exporter may keep a symbolic input and
  still bake the traced batch into the graph: the run finds it);
* torch.export: ``dynamic_shapes=Dim.DYNAMIC``; a constraint violation means
  the code specialises the batch, a guard failure at run time likewise;
* torch.compile: the dimension is marked dynamic and the function compiled
  as the static path judged it (``fullgraph=True`` where that compiled one graph,
  else the default ``torch.compile``), run at the traced size, then at the other size under
  ``error_on_recompile``: a constraint error or a recompilation means it does
  not hold (recompile.py says which guard failed and the library line that set it).

Inputs may be dicts, lists and tuples of tensors: the batch dimension is one
per tensor leaf (batch_dim.py), so every leaf is repeated, marked dynamic or
given a ``Dim`` where its container puts it.

A library that raises when it is handed a symbolic batch size (kornia asserts
``isinstance(batch_size, int)``; the error names the symbol, "Got s38") can be
captured only at a fixed batch: that is ``static``, with the library's line.
A random operator (``check=False``) is compared at the other size by output
count, rank, dtype and finiteness only, and its detail says so, except under
torch.compile, which draws as eager does there too (random_draws.py) and is
compared in full. A failure of a
call that bakes tensors sized like the registered batch into its keyword
arguments (a whole batch's parameters) is n/a: the pass cannot grow a
constant, so the failure may be the call's, not the operator's.

The result, ``{"status", "detail", "where"}`` plus the two batch sizes, is
attached as ``dynamic`` to the path's result. Why the batch was specialised
comes from torch's shape environment: the first time a batch symbol becomes a
constant, the user frames and torch frames of that moment are recorded.
"""

from __future__ import annotations

import contextlib
import os
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from ...snapshot.causes import CauseKind, settle_dynamic
from ...snapshot.result_records import dynamic_result
from ...snapshot.vocabulary import (
    DYNAMIC_FAIL,
    DYNAMIC_NOT_APPLICABLE,
    DYNAMIC_OK,
    DYNAMIC_STATIC,
    SUPPORTED,
    DynamicStatus,
)
from ..cases.batch_dim import map_leaves
from ..cases.containers import input_leaves
from ..cases.registry import CaseSpec
from . import capture, compare_outputs, number_outputs, random_draws
from .case_run import CaseRun, seeded
from .explain import (
    BATCH_SPECIALISED,
    LIBRARY_GUARD,
    UNCLASSIFIED,
    batch_specialisation,
    clean_line,
    exception_chain,
    explain,
    explain_exception,
)
from .locate import LibraryRoot, deepest_frame, where_exception
from .recompile import failed_guard, wording
from .onnx_runtime import map_onnx_inputs, onnx_session, NotSaved, saved_model


MIN_TRACED = 2  # a batch of 1 is specialised by every tracer (0/1 specialisation), so trace at 2 or more
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_PROBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the whole probe package


def not_applicable(spec: CaseSpec) -> dict[str, Any]:
    return dynamic_result(DYNAMIC_NOT_APPLICABLE, spec.batch.why)


def batch_sizes(size: int) -> tuple[int, int]:
    """(traced, run): the registered batch when it is at least 2, else 2; then one more."""
    traced = max(size, MIN_TRACED)
    return traced, traced + 1


def at_batch(inputs: tuple[Any, ...], dims: tuple[int | None, ...], size: int) -> tuple[Any, ...]:
    """Inputs (containers kept) with ``size`` samples along the batch dimension of every tensor leaf that
    has one, repeating the registered samples in turn; a leaf without one is passed as given."""

    def resized(tensor: torch.Tensor, dim: int | None) -> torch.Tensor:
        if dim is None:  # already a fresh copy (CaseRun.inputs)
            return tensor
        index = torch.arange(size, device=tensor.device) % tensor.shape[dim]
        return tensor.index_select(dim, index).contiguous()

    return map_leaves(inputs, dims, resized)


# --------------------------------------------------------------------------
# why the batch was specialised


@dataclass
class Specialisation:
    user_frames: list[traceback.FrameSummary]  # innermost last
    torch_functions: list[str] = field(default_factory=list)  # torch's own frames, names only


class SpecialisationLog:
    """Records the first time torch's shape environment turns a size symbol into a constant."""

    def __init__(self) -> None:
        self.found: Specialisation | None = None

    @contextlib.contextmanager
    def watching(self) -> Iterator[SpecialisationLog]:
        try:
            import sympy
            from torch._guards import TracingContext
            from torch.fx.experimental.symbolic_shapes import ShapeEnv
        except ImportError:
            yield self
            return
        original = ShapeEnv.__dict__.get("_set_replacement")
        if original is None:  # torch internals changed: no reason, but the verdict stands
            yield self
            return
        log = self

        def set_replacement(env: Any, symbol: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
            if log.found is None and isinstance(target, sympy.Integer) and _is_size(env, symbol):
                python = traceback.extract_stack()[:-1]
                # dynamo runs user code symbolically: its user frames are in the tracing context
                user = list(TracingContext.extract_stack()) or [f for f in python if _is_user_frame(f.filename)]
                log.found = Specialisation(user, [f.name for f in python if f.filename.startswith(_TORCH_DIR)])
            return original(env, symbol, target, *args, **kwargs)

        ShapeEnv._set_replacement = set_replacement
        try:
            yield self
        finally:
            ShapeEnv._set_replacement = original


def _is_size(env: Any, symbol: Any) -> bool:
    """Whether ``symbol`` stands for a tensor size (not, say, an integer read from a tensor's values)."""
    names = []
    for source in getattr(env, "var_to_sources", {}).get(symbol, []):
        name = getattr(source, "name", "")
        names.append(name() if callable(name) else str(name))
    return not names or any(".size()" in name for name in names)


def _is_user_frame(filename: str) -> bool:
    return not filename.startswith((_TORCH_DIR, _PROBE_DIR, "<"))


def _specialising_line(found: Specialisation, root: Any) -> tuple[str, str, str]:
    """(source line, where, function) of a specialisation: the library frame, else the innermost user frame."""
    where = deepest_frame([(f.filename, f.lineno or 0) for f in found.user_frames], root)
    for frame in reversed(found.user_frames):
        label = root.label(frame.filename, frame.lineno or 0) if root.owns(frame.filename) else ""
        if (where and label == where) or (not where and _is_user_frame(frame.filename)):
            return (frame.line or "").strip(), where, frame.name
    return "", where, ""


def _why_specialised(found: Specialisation | None, traced: int, root: Any) -> tuple[str, str]:
    """(reason, where) for a specialised batch."""
    if found is None:
        return "the batch size is specialised by the traced code", ""
    line, where, _ = _specialising_line(found, root)
    return batch_specialisation(line, found.torch_functions), where


_SIZE_SYMBOL = re.compile(r"\bs\d+\b")  # how torch prints a symbolic size: s0, s38


def _rejects_symbolic_size(exc: BaseException, root: Any) -> tuple[str, str] | None:
    """(message, where) when the library itself raised on being given a symbolic size, e.g. kornia's
    ``assert isinstance(batch_size, int)`` -> "`batch_size` shall be a positive integer. Got s38."
    (checked with a plain torch.export on torch 2.13): the raise is in the library and names a size symbol."""
    for cause in reversed(exception_chain(exc)):
        frames = traceback.extract_tb(cause.__traceback__)
        text = str(cause)
        if frames and root.owns(frames[-1].filename) and _SIZE_SYMBOL.search(text):
            return (f"{type(cause).__name__}: {clean_line(text, 120)}",
                    root.label(frames[-1].filename, frames[-1].lineno or 0))
    return None


def _is_specialisation(exc: BaseException) -> bool:
    text = "\n".join(f"{type(e).__name__}: {e}" for e in exception_chain(exc))
    # the ONNX exporter retries a violation with torch's suggested fix (batch = 2), which then conflicts
    # with the dynamic range asked for
    return any(sign in text for sign in ("Constraints violated", "specialized it to be a constant",
                                         "conflicts between user-specified ranges and inferred ranges"))


# --------------------------------------------------------------------------
# the pass


class DynamicBatch:
    """The dynamic-batch pass of one case on one device, from the same fresh copies as the paths (:class:`CaseRun`)."""

    def __init__(self, run: CaseRun, root: LibraryRoot, opset: int):
        # torch.compile as its static result was judged: fullgraph=True where that compiled one graph
        self.fullgraph = False
        self.run = run
        self.root = root
        self.opset = opset
        self.spec = run.spec
        self.dims = self.spec.batch.dims or ()
        self.traced, self.other = batch_sizes(self.spec.batch.size)
        self._reference: tuple[torch.Tensor, ...] | None = None
        self._eager_problem = ""

    def inputs(self, size: int) -> tuple[Any, ...]:
        return at_batch(self.run.inputs(), self.dims, size)

    def _shapes(self, dim: Any) -> tuple[Any, ...]:
        """``dynamic_shapes`` for torch.export and the ONNX exporter: the inputs' structure, each leaf
        ``{batch dim: dim}`` or None."""
        return map_leaves(self.run.inputs(), self.dims, lambda _, d: {d: dim} if d is not None else None)

    def _result(self, status: DynamicStatus, detail: str = "", where: str = "",
                cause: CauseKind = BATCH_SPECIALISED) -> dict[str, Any]:
        """A dynamic result; its cause (kept where it is static or fails): the batch made a constant unless
        said otherwise."""
        return dynamic_result(status, detail, where, self.traced, self.other, cause=cause)

    def _eager(self) -> str:
        """Eager at both sizes (once per case): "" or why the operator itself does not take them.

        With per-sample rank-1 inputs (batch_dim.Batch.per_sample) those are grown with the batch first;
        when the operator does not run that way they are held as given (the plain default batch)."""
        if self._reference is None and not self._eager_problem:
            if self.spec.batch.per_sample:
                self.dims = self.spec.batch.per_sample
                if not self._eager_at_both_sizes():
                    return ""
                self.dims = self.spec.batch.dims or ()
            self._eager_problem = self._eager_at_both_sizes()
        return self._eager_problem

    def _eager_at_both_sizes(self) -> str:
        """Run eagerly at the traced and the run size with ``self.dims``; keep the run size's outputs."""
        for size in (self.traced, self.other):  # the traced size too: a capture there must be possible
            try:
                wrapper, inputs = self.run.wrapper(), self.inputs(size)
                outputs = number_outputs.detached(seeded(lambda w=wrapper, i=inputs: w(*i)))
            except Exception as exc:
                return (f"the operator does not run eagerly at batch {size}: {explain_exception(exc)}; name its "
                        "batch dimension with batch= or opt out with batch=None")
        self._reference = outputs  # the reference at the run size
        return ""

    def _judge(self, outputs: list[Any], specialised: SpecialisationLog | None = None) -> dict[str, Any]:
        assert self._reference is not None
        in_full = self.spec.check or random_draws.active()  # a random operator: where drawn as eager draws
        if in_full:
            verdict = compare_outputs.compare(self._reference, outputs, self.spec.atol, self.spec.rtol)
        else:
            verdict = compare_outputs.check_random(self._reference, outputs)
        if verdict.same:
            return self._result(DYNAMIC_OK)
        why, where = ("", "")
        if specialised is not None and specialised.found is not None:
            why, where = _why_specialised(specialised.found, self.traced, self.root)
        differs = (f"at batch {self.other} the result differs from eager ({verdict.detail})" if in_full
                   else f"random operator, and at batch {self.other} even the output count, rank, dtype or "
                        f"finiteness differ from eager ({verdict.detail})")
        return self._result(DYNAMIC_STATIC, differs + (f": {why}" if why else ""), where)

    def _capture_failed(self, exc: BaseException, log: SpecialisationLog) -> dict[str, Any]:
        if _is_specialisation(exc) or log.found is not None and "Guard failed" in str(exc):
            why, where = _why_specialised(log.found, self.traced, self.root)
            return self._result(DYNAMIC_STATIC, f"works only at batch {self.traced}: {why}",
                                where or where_exception(exc, self.root))
        rejected = _rejects_symbolic_size(exc, self.root)
        if rejected is not None:  # the batch must be a Python int there: the capture can only be static
            message, where = rejected
            return self._result(DYNAMIC_STATIC, f"works only at a fixed batch: the library raises when the batch size "
                                f"is symbolic ({message})", where, LIBRARY_GUARD)
        said = explain(exc)
        return self._result(DYNAMIC_FAIL, f"with a dynamic batch: {said.words}", where_exception(exc, self.root),
                            said.cause)

    def _run_failed(self, exc: BaseException, what: str, log: SpecialisationLog) -> dict[str, Any]:
        reason = explain_exception(exc)
        detail = f"{what} at batch {self.other}: {reason}"
        if "accepts only" in reason:
            detail = reason
        where = where_exception(exc, self.root)
        if log.found is not None:
            why, where_found = _why_specialised(log.found, self.traced, self.root)
            detail += f"; {why}"
            where = where_found or where
        return self._result(DYNAMIC_STATIC, detail, where)

    # -- paths

    def onnx(self) -> dict[str, Any]:
        wrapper, inputs = self.run.wrapper(), self.inputs(self.traced)
        log = SpecialisationLog()
        with log.watching():
            try:
                program = [seeded(lambda: capture.onnx_program(wrapper, inputs, self.opset,
                                                                self._shapes(torch.export.Dim.DYNAMIC)))]
            except Exception as exc:
                return self._capture_failed(exc, log)
        try:
            with saved_model(program.pop()) as model:
                return self._run_onnx(model, log)
        except NotSaved as exc:
            said = explain(exc)
            return self._result(DYNAMIC_FAIL, f"with a dynamic batch: {said.words}", cause=said.cause)

    def _run_onnx(self, model: str, log: SpecialisationLog) -> dict[str, Any]:
        import onnxruntime

        try:
            session, _ = onnx_session(model, self.run.device, onnxruntime)
        except Exception as exc:
            said = explain(exc)
            return self._result(DYNAMIC_FAIL, f"with a dynamic batch, onnxruntime cannot load the model: "
                                f"{said.words}", cause=said.cause)
        names = [i.name for i in session.get_inputs()]
        feed, _, problem = map_onnx_inputs(names, self.inputs(self.other))
        if problem:
            return self._result(DYNAMIC_FAIL, problem, cause=UNCLASSIFIED)
        try:
            outputs = session.run(None, feed)
        except Exception as exc:
            return self._run_failed(exc, "the exported model fails", log)
        return self._judge(list(outputs), log)

    def export(self) -> dict[str, Any]:
        wrapper, inputs = self.run.wrapper(), self.inputs(self.traced)
        log = SpecialisationLog()
        with log.watching():
            try:
                program = seeded(lambda: capture.exported_program(wrapper, inputs,
                                                                  self._shapes(torch.export.Dim.DYNAMIC)))
            except Exception as exc:
                return self._capture_failed(exc, log)
        try:
            module = program.module()
            outputs = seeded(lambda: module(*self.inputs(self.other)))
        except Exception as exc:
            return self._run_failed(exc, "the exported program fails", log)
        return self._judge(list(number_outputs.outputs_or_numbers(outputs)), log)

    @random_draws.compiled_as_eager_draws  # a random operator's compile draws as eager does (random_draws.py)
    def compile(self) -> dict[str, Any]:
        dynamo = torch._dynamo
        log = SpecialisationLog()
        try:
            dynamo.reset()
            inputs = self.inputs(self.traced)
            for (_, tensor), dim in zip(input_leaves(inputs), self.dims):
                if dim is not None:
                    dynamo.mark_dynamic(tensor, dim)
            compiled = capture.compiled(self.run.wrapper(), fullgraph=self.fullgraph)
            with log.watching():
                try:
                    seeded(lambda: compiled(*inputs))
                except Exception as exc:
                    return self._capture_failed(exc, log)
                other = self.inputs(self.other)
                try:
                    with dynamo.config.patch(error_on_recompile=True):
                        outputs = seeded(lambda: compiled(*other))
                except Exception as exc:
                    if any(type(e).__name__ == "RecompileError" for e in exception_chain(exc)):
                        return self._recompiled(exc, log)
                    return self._run_failed(exc, "the compiled function fails", log)
            return self._judge(list(outputs), log)
        finally:
            dynamo.reset()

    def _recompiled(self, exc: BaseException, log: SpecialisationLog) -> dict[str, Any]:
        """Which guard failed and which library line set it (recompile.py); never dynamo's raw guard text,
        which carries the machine's paths."""
        message = next((str(e) for e in exception_chain(exc) if type(e).__name__ == "RecompileError"), str(exc))
        guard = failed_guard(message, self.root)
        if guard is None:  # a message this torch words otherwise: the recorded specialisation, if any
            detail, where = f"recompiles at batch {self.other}", ""
            if log.found is not None:
                why, where = _why_specialised(log.found, self.traced, self.root)
                detail += f": {why}"
            return self._result(DYNAMIC_STATIC, detail, where)
        set_by = ("", "")
        if log.found is not None:
            line, where, function = _specialising_line(log.found, self.root)
            if function == guard.function:  # a specialisation in another function set another guard
                set_by = (line, where)
        detail, where = wording(guard, self.other, set_by)
        return self._result(DYNAMIC_STATIC, detail, where)

    @staticmethod
    def applies(static: dict[str, Any]) -> bool:
        """Only a path that works at the registered size is asked whether it works at another."""
        return static.get("status") in SUPPORTED

    def probe(self, path: str) -> dict[str, Any]:
        """The ``dynamic`` result of ``path`` (whose static result is supported)."""
        if self.spec.batch.dims is None:
            return not_applicable(self.spec)
        problem = self._eager()
        if problem:
            return dynamic_result(DYNAMIC_NOT_APPLICABLE, problem, traced=self.traced, other=self.other)
        try:
            result = getattr(self, path)()
        except Exception as exc:  # a bug outside the staged steps; still a fact about this case
            said = explain(exc)
            result = self._result(DYNAMIC_FAIL, f"with a dynamic batch: {said.words}", where_exception(exc, self.root),
                                  said.cause)
        return settle_dynamic(self._unless_baked_per_sample(result), path)

    def _unless_baked_per_sample(self, result: dict[str, Any]) -> dict[str, Any]:
        """A failure is not the operator's when the call bakes tensors sized for the registered batch.

        kornia's ``aug(input, params=aug._params)`` examples bake one batch's parameters: at another batch
        the shapes disagree and kornia's other branch tests values, which no capture can keep. The pass
        cannot grow a constant, so the answer is n/a, with what happened."""
        if result["status"] not in (DYNAMIC_FAIL, DYNAMIC_STATIC):
            return result
        sized = [name for name, value in sorted(self.spec.kwargs.items())
                 if any(getattr(leaf, "ndim", 0) >= 1 and int(leaf.shape[0]) == self.spec.batch.size
                        for _, leaf in input_leaves([value]))]
        if not sized:
            return result
        named = ", ".join(f"`{name}`" for name in sized)
        detail = (f"the call bakes {named} with tensors sized for batch {self.spec.batch.size}, which the pass "
                  f"cannot grow with the batch; with them held: {result['detail']}")
        return self._result(DYNAMIC_NOT_APPLICABLE, detail, result["where"])
