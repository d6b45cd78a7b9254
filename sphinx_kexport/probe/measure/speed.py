"""The speed pass (``--speed``): what a working path buys over eager, timed the compile-first way.

For a supported path, eager and the path's callable (the compiled function, the exported program's module,
the onnxruntime session) are timed with ``torch.utils.benchmark``'s ``Timer.blocked_autorange`` (its
median), after warm-up (the first call pays for compiling), in alternating rounds (eager then the path, the
path then eager, ...) so that drift on a shared machine hits both, with the worker's thread count fixed
(``Timer(num_threads=)``) and recorded, CUDA synchronised after every call. The ratio is the median of all of
eager's blocks over the path's; its spread runs from eager's first quartile over the path's third to eager's
third over the path's first (both interquartile ranges at their far ends: one disturbed block moves neither),
and a spread across 1.0 reads "no clear difference" (:func:`~...snapshot.result_records.speed_verdict_of`).

Two sizes: the case's own inputs (timed with what the path step captured), and a realistic one: the inputs
a case gives for timing (``case(bench=...)``), else its batch grown to :data:`SPEED_BATCH` (other
dimensions as the case has them), captured again at that size (a static capture holds one shape only). The
larger size is skipped, and the record says why, when eager alone would take longer than
:data:`BUDGET_SECONDS` there, or when one eager call would hold more memory there than the pass may use (a
share of what the machine has free, :data:`MEMORY_SHARE`): foreseen from one call at the case's own inputs
scaled by how much larger the inputs are, before anything runs at the larger size, since a call past the
machine's memory is not an error the worker can catch but the out-of-memory killer.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable

import torch
from torch.utils.benchmark import Timer

from ...snapshot.result_records import speed_figure, speed_record
from ...snapshot.vocabulary import (COMPILE, CUDA, EXPORT, ONNX, SPEED_AT_BATCH, SPEED_AT_BENCH, SPEED_AT_INPUTS,
                                    SPEED_BATCH)
from ..base.memory import address_space_cap, available_kb, block_peak, out_of_memory
from ..cases.containers import input_leaves
from .case_run import CaseRun, trim_heap
from .dynamic_batch import at_batch
from .explain import explain_exception
from . import capture
from .onnx_runtime import map_onnx_inputs, onnx_session, saved_model

ROUNDS = 5  # alternating rounds of (eager, path) blocks
BLOCK_SECONDS = 0.05  # blocked_autorange's min_run_time per round and callable
WARM_UP_CALLS = 3  # calls of each callable before timing (the first compiles, the next settle caches)
BUDGET_SECONDS = 10.0  # eager's timing at the larger size over the case's paths may take this long, else skipped
MAX_SHAPES = 4  # tensor shapes a figure names; more are counted
MEMORY_SHARE = 0.5  # of the machine's free memory, what the larger size may take on CPU (workers share it)
# a program captured from constants may return what capturing computed (ONNX's optimiser folds it away), so
# its time against eager's says nothing of the operator
NO_TENSOR_INPUT = ("not timed: the case has no tensor input, so a captured program may return what capturing "
                   "computed, and its time says nothing of the operator's")

Call = Callable[[], Any]


def line_tracer_on() -> bool:
    """Whether a line tracer (the code watch's hook under Python 3.11, a debugger) is on in this thread: eager's Python
    would run slower under it than the path it is timed against, so the speed record says whether one was."""
    if sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+: coverage.py may use sys.monitoring instead
    return monitoring is not None and monitoring.get_tool(monitoring.COVERAGE_ID) is not None


def shapes_text(inputs: tuple[Any, ...]) -> str:
    """``"32×3×5×5, 32"``: the shapes of the tensor leaves a figure was timed at."""
    shapes = ["×".join(str(n) for n in leaf.shape) or "scalar" for _, leaf in input_leaves(inputs)]
    more = f" and {len(shapes) - MAX_SHAPES} more" if len(shapes) > MAX_SHAPES else ""
    return ", ".join(shapes[:MAX_SHAPES]) + more


def _quartiles(times: list[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile) of the blocks' times per call."""
    if len(times) < 2:
        return times[0], times[0], times[0]
    q1, median, q3 = statistics.quantiles(times, n=4, method="inclusive")
    return q1, median, q3


def _tensors(inputs: tuple[Any, ...]) -> list[torch.Tensor]:
    return [leaf for _, leaf in input_leaves(inputs) if isinstance(leaf, torch.Tensor)]


def _input_bytes(inputs: tuple[Any, ...]) -> int:
    return sum(leaf.numel() * leaf.element_size() for leaf in _tensors(inputs))


def _size_text(kb: float) -> str:
    return f"{kb / 2**20:.1f} GB" if kb >= 2**20 else f"{kb / 2**10:.0f} MB"


def _seconds_of(call: Call) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


class SpeedPass:
    """The speed pass of one case on one device, from the same fresh copies as the paths (:class:`CaseRun`)."""

    def __init__(self, run: CaseRun, opset: int, budget: float = BUDGET_SECONDS, memory_kb: int | None = None):
        self.run = run
        self.opset = opset
        self.budget = budget
        self.memory_kb = memory_kb  # what the larger size's eager call may hold; None: a share of what is free
        self.device = run.device
        self.threads = torch.get_num_threads()
        self._larger: tuple[str, int, tuple[Any, ...]] | None = None  # (size word, batch, inputs), made once
        self._larger_why = ""
        self._own_peak_kb: int | None = None  # the memory one eager call holds at the case's own inputs
        self._limit_kb: int | None = None
        self.traced = False  # a line tracer was on while a figure was timed (the record says so: not "untraced")

    # -- timing

    def _synchronised(self, fn: Call) -> Call:
        if self.device.startswith(CUDA):
            def call() -> Any:
                out = fn()
                torch.cuda.synchronize()
                return out
            return call
        return fn

    def _block(self, fn: Call) -> list[float]:
        timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=self.threads)
        return list(timer.blocked_autorange(min_run_time=BLOCK_SECONDS).times)

    def time_pair(self, eager: Call, path: Call, size: str, inputs: tuple[Any, ...],
                  batch: int = 0) -> dict[str, Any]:
        """One figure: eager against ``path`` at ``inputs``, warmed up, in alternating rounds."""
        eager, path = self._synchronised(eager), self._synchronised(path)
        self.traced = self.traced or line_tracer_on()
        with torch.no_grad():
            for _ in range(WARM_UP_CALLS):
                eager()
                path()
            eager_times: list[float] = []
            path_times: list[float] = []
            for round_ in range(ROUNDS):
                if round_ % 2:
                    path_times += self._block(path)
                    eager_times += self._block(eager)
                else:
                    eager_times += self._block(eager)
                    path_times += self._block(path)
        (e1, eager_s, e3), (p1, path_s, p3) = _quartiles(eager_times), _quartiles(path_times)
        # the spread: the ratio from eager's and the path's interquartile ranges at their far ends
        return speed_figure(size, shapes_text(inputs), eager_s, path_s, e1 / p3, e3 / p1, batch)

    # -- the callables

    def eager_call(self, inputs: tuple[Any, ...]) -> Call:
        wrapper = self.run.wrapper()
        return lambda: wrapper(*inputs)

    def capture(self, path: str, inputs: tuple[Any, ...], fullgraph: bool) -> Call:
        """``path`` captured afresh at ``inputs`` (the larger size), as a call without arguments."""
        wrapper = self.run.wrapper()
        if path == COMPILE:
            compiled = capture.compiled(wrapper, fullgraph=fullgraph, dynamic=False)
            return lambda: compiled(*inputs)
        if path == EXPORT:
            with torch.no_grad():
                module = capture.exported_program(wrapper, inputs).module()
            return lambda: module(*inputs)
        assert path == ONNX
        import onnxruntime

        with torch.no_grad():
            program = capture.onnx_program(wrapper, inputs, self.opset)
        with saved_model(program) as model:
            session, _ = onnx_session(model, self.device, onnxruntime)
        feed, _, problem = map_onnx_inputs([i.name for i in session.get_inputs()], inputs)
        if problem:
            raise ValueError(problem)
        return lambda: session.run(None, feed)

    # -- the larger size

    def larger(self) -> tuple[str, int, tuple[Any, ...]] | None:
        """(size word, batch, inputs) of the realistic size, or None (``self._larger_why`` says why)."""
        if self._larger is None and not self._larger_why:
            self._larger, self._larger_why = self._find_larger()
        return self._larger

    def _find_larger(self) -> tuple[tuple[str, int, tuple[Any, ...]] | None, str]:
        spec = self.run.spec
        if spec.bench is not None:
            inputs = tuple(self.run.fresh(value) for value in spec.bench)
            label = "the bench= inputs"
            too_big = self._over_memory(inputs, label)
            return (None, too_big) if too_big else self._within_budget(SPEED_AT_BENCH, 0, inputs, label)
        if spec.batch.dims is None:
            return None, ""  # no batch dimension: the case's own inputs are the only size (said by no figure)
        if spec.batch.size >= SPEED_BATCH:
            return None, ""  # already a realistic batch
        last = ""
        for dims in filter(None, (spec.batch.per_sample, spec.batch.dims)):
            inputs = at_batch(self.run.inputs(), dims, SPEED_BATCH)
            too_big = self._over_memory(inputs, f"batch {SPEED_BATCH}")
            if too_big:  # before any call there: past the machine's memory the worker is killed, not told
                return None, too_big
            try:
                with self._capped():
                    self.eager_call(inputs)()
            except Exception as exc:  # per-sample vectors held as given next, as the dynamic-batch pass does
                if self._capped_out(exc):
                    return None, self._out_of_memory(f"batch {SPEED_BATCH}")
                last = explain_exception(exc)
                continue
            return self._within_budget(SPEED_AT_BATCH, SPEED_BATCH, inputs, f"batch {SPEED_BATCH}")
        return None, f"batch {SPEED_BATCH} not timed: the operator does not run eagerly there ({last})"

    def _within_budget(self, size: str, batch: int, inputs: tuple[Any, ...], label: str
                       ) -> tuple[tuple[str, int, tuple[Any, ...]] | None, str]:
        eager = self._synchronised(self.eager_call(inputs))

        def estimate_of(one: float) -> float:  # per path: warm-up, then each round's block (>= twice the call)
            return 3 * (WARM_UP_CALLS * one + ROUNDS * max(BLOCK_SECONDS, 2 * one))

        try:
            with torch.no_grad(), self._capped():
                eager()  # the first call settles allocations; the next are the ones estimated from
                one = _seconds_of(eager)
                if estimate_of(one) > self.budget:
                    # one call disturbed by a busy machine (the test suite's other worker compiling) must not
                    # skip the size: the faster of two calls decides
                    one = min(one, _seconds_of(eager))
        except Exception as exc:
            if self._capped_out(exc):
                return None, self._out_of_memory(label)
            return None, f"{label} not timed: the operator does not run eagerly there ({explain_exception(exc)})"
        estimate = estimate_of(one)
        if estimate > self.budget:
            return None, (f"{label} not timed: one eager call takes {one:.2g} s there, so timing eager against "
                          f"the paths would take about {estimate:.0f} s, over the {self.budget:g} s budget")
        return (size, batch, inputs), ""

    def _over_memory(self, larger: tuple[Any, ...], label: str) -> str:
        """Why ``larger`` is not timed for memory, foreseen from one eager call at the case's own inputs, or ""."""
        own = self.run.inputs()
        own_bytes, larger_bytes = _input_bytes(own), _input_bytes(larger)
        limit = self._limit()
        if not own_bytes or not limit or larger_bytes <= own_bytes:
            return ""
        if self._own_peak_kb is None:
            eager = self._synchronised(self.eager_call(own))
            trim_heap()  # freed pages the heap kept from the timed calls would hide what this call takes
            try:
                with torch.no_grad(), block_peak() as peak:
                    eager()
            except Exception:  # the case's own figure timed this call: a failure here is the timing's to report
                return ""
            self._own_peak_kb = peak.kb
        scale = larger_bytes / own_bytes
        foreseen = self._own_peak_kb * scale  # what a call holds grows with its inputs (activations, outputs)
        if foreseen <= limit:
            return ""
        own_text = _size_text(self._own_peak_kb)
        return (f"{label} not timed: one eager call holds {own_text} at the case's inputs, so about "
                f"{_size_text(foreseen)} at {scale:.0f} times their size, more than {self._limit_words()}")

    def _limit(self) -> int:
        """What the larger size may take beyond what the worker holds, in KiB (0: not known, no guard); read
        once, so that every step at that size has the same."""
        if self._limit_kb is None:
            if self.device.startswith(CUDA):
                self._limit_kb = 0  # the device's memory: running out there raises (CUDA out of memory), no killer
            elif self.memory_kb is not None:
                self._limit_kb = self.memory_kb
            else:
                self._limit_kb = int(available_kb() * MEMORY_SHARE)
        return self._limit_kb

    def _limit_words(self) -> str:
        why = "" if self.memory_kb is not None else f" ({MEMORY_SHARE:.0%} of what this machine had free)"
        return f"the {_size_text(self._limit())} the speed pass may use{why}"

    def _capped(self) -> Any:
        """Work at the larger size, where an allocation past the limit fails and is told (what foreseeing
        from eager misses: onnxruntime's arena, an exporter's copies) instead of the out-of-memory killer
        ending the worker and the case's speed records with it."""
        return address_space_cap(self._limit())

    def _capped_out(self, exc: BaseException) -> bool:
        """Whether ``exc`` is an allocation the cap refused (the words then say so, not the allocator's)."""
        return bool(self._limit()) and out_of_memory(exc)

    def _out_of_memory(self, label: str) -> str:
        return f"{label} not timed: it needs more memory there than {self._limit_words()}"

    # -- the pass

    def measure(self, path: str, captured: Call, fullgraph: bool = True) -> dict[str, Any]:
        """The ``speed`` record of a supported ``path``: ``captured`` is its callable at the case's own inputs
        (what the path step captured)."""
        own = self.run.inputs()
        extra = {"fullgraph": fullgraph} if path == COMPILE else {}
        if not _tensors(own):
            return speed_record(self.threads, [], NO_TENSOR_INPUT, untraced=True, **extra)
        figures, notes = [], []
        try:
            figures.append(self.time_pair(self.eager_call(own), captured, SPEED_AT_INPUTS, own))
        except Exception as exc:
            notes.append(f"not timed at the case's inputs: {explain_exception(exc)}")
        larger = self.larger() if figures else None
        if larger is not None:
            size, batch, inputs = larger
            label = f"batch {batch}" if batch else "the bench= inputs"
            try:
                with self._capped():
                    call = self.capture(path, inputs, fullgraph)
                    figures.append(self.time_pair(self.eager_call(inputs), call, size, inputs, batch))
            except Exception as exc:
                notes.append(self._out_of_memory(label) if self._capped_out(exc) else
                             f"{label} not timed: {explain_exception(exc)}")
        elif self._larger_why:
            notes.append(self._larger_why)
        return speed_record(self.threads, figures, "; ".join(notes), untraced=not self.traced, **extra)
