"""Which code of the library and the project one case runs, while a worker measures it.

What building the case ran is watched elsewhere, where its case module is imported for the inventory
(:mod:`.build_watch`). From the eager run on, two sources, because one cannot see everything:

- a hook Python calls as each function starts, never at each line: reuse needs which functions ran, not which
  lines. Python 3.12+: ``sys.monitoring``'s ``PY_START`` (and ``PY_RESUME``, a generator going on) event,
  which the hook switches off for each code object after its first call (``DISABLE``), so a function called a
  million times costs one call of the hook; a new case or context turns them on again (``restart_events()``).
  Python 3.11 has no such event: a ``sys.settrace`` global function that returns None (so no line is ever
  traced) is called as each Python frame starts, watched file or not (``sys.setprofile``'s would be called at
  each return and each C call too; ``benchmarks/bench_watch_hook.py`` compares them);
- dynamo does not run the code it compiles, it reads it: the functions it traced (inlined ones included, and
  the branches taken only under ``torch.compiler.is_compiling()``) are in each compile's ``TracingContext``.
  A private attribute of torch's; where a torch lacks it, compile-only code is not seen (the rest still is).
  So the hook is paused while a case is compiled (:meth:`CodeWatch.lines`), and during any dynamo compile
  that starts while it is on (a library's test that calls ``torch.compile``; dynamo's compile callbacks):
  under Python 3.11 it would be called for every Python frame dynamo and inductor open, and pausing it under
  3.12 too keeps what both Pythons record the same.

A function already running when a case or context begins, or when the hook resumes, goes on running there
without starting again: each such frame on the caller's stack counts for the new context too (a case
module's helper that builds one case after another).

Only the library's folder and the project's folders are watched, never torch or the standard library: those
are keyed by their versions. The result is ``{ref: digest}`` (:mod:`..base.code_digest`): each function that
ran (a nested function, a lambda or a comprehension counts as the outermost function it is in, whose ref
digests the whole ``def``), and what of its file's top level it reads. A file whose top level ran but none of
its functions (a module imported) is left out: importing a library runs the top level of every file, and
each case would depend on all of them.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import threading
from typing import Any, Iterable

from ..base.code_digest import CodePlaces, SourceDigests

_OWN_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # sphinx_kexport/
_FREE_TOOLS = (3, 4)  # sys.monitoring's tool ids that no one names (0 debugger, 1 coverage, 2 profiler, 5 optimizer)

Started = tuple[str, str]  # (a code object's co_filename, its co_qualname)


class _Monitoring:
    """Python 3.12+: ``sys.monitoring``, each code object reported once per context."""

    def __init__(self, tool: int, owner: _ProcessWatch):
        monitoring = sys.monitoring  # type: ignore[attr-defined]
        self._monitoring, self._tool = monitoring, tool
        self._events = monitoring.events.PY_START | monitoring.events.PY_RESUME
        disable, watched, judge = monitoring.DISABLE, owner.watched, owner.judge

        def started(code: Any, _offset: int) -> Any:
            inside = watched.get(code.co_filename)
            if inside is None:
                inside = judge(code.co_filename)
            if inside:
                owner.now.add((code.co_filename, code.co_qualname))
            return disable  # this code object's event is off until restart_events()

        monitoring.use_tool_id(tool, "sphinx-kexport code watch")
        monitoring.register_callback(tool, monitoring.events.PY_START, started)
        monitoring.register_callback(tool, monitoring.events.PY_RESUME, started)

    def on(self, on: bool) -> None:
        self._monitoring.set_events(self._tool, self._events if on else 0)

    def restart(self) -> None:
        self._monitoring.restart_events()


class _Settrace:
    """Python 3.11 (or no free tool id): a global trace function that records the frame's code and returns None,
    so that no line of it is traced; in this thread and in threads started while it is on. One Python call a
    frame: under 3.11 any trace function makes the interpreter run unspecialised while it is set, which costs
    the most, so what it does itself is kept short (benchmarks/bench_watch_hook.py)."""

    def __init__(self, owner: _ProcessWatch):
        watched, judge = owner.watched, owner.judge

        def started(frame: Any, _event: str, _arg: Any) -> None:  # called with "call" only: it is global
            code = frame.f_code
            inside = watched.get(code.co_filename)
            if inside is None:
                inside = judge(code.co_filename)
            if inside:
                owner.now.add((code.co_filename, code.co_qualname))

        self._started = started

    def on(self, on: bool) -> None:
        sys.settrace(self._started if on else None)
        threading.settrace(self._started if on else None)  # type: ignore[arg-type]

    def restart(self) -> None:
        pass  # called at every start anyway


def _hook(owner: _ProcessWatch) -> _Monitoring | _Settrace:
    """The cheapest hook this Python offers that is called as a function starts."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        for tool in _FREE_TOOLS:
            if monitoring.get_tool(tool) is None:
                return _Monitoring(tool, owner)
    return _Settrace(owner)


class _ProcessWatch:
    """Everything the watch keeps beside its :class:`CodeWatch` objects, in one place. It is process-wide
    because what it serves is: a trace function or a ``sys.monitoring`` tool, dynamo's compile callbacks and
    ``TracingContext.__init__`` are each one per process (per interpreter), so at most one watch is on at a
    time, and those hooks must find what they write to without being handed a watch."""

    def __init__(self) -> None:
        self.active: CodeWatch | None = None  # the watch that is on
        self.context = ""  # the context :meth:`CodeWatch.switch` set last
        self.started: dict[str, set[Started]] = {}  # context -> the watched code objects that started in it
        self.now: set[Started] = self.started.setdefault("", set())  # the hook adds to it
        # (the context then, the traced_code list) of every TracingContext made while a watch is on
        self.traced_code: list[tuple[str, list[Any]]] = []
        self.watched: dict[str, bool] = {}  # co_filename -> whether the active watch watches it (the hooks read it)
        self._watched_by: list[str] | None = None  # the folders those answers are for
        self._hook: _Monitoring | _Settrace | None = None
        self._hooked = False  # whether the hook is on now
        self._dynamo_observed = False

    def begin(self, watch: CodeWatch) -> None:
        """``watch`` is on from now, in the context "", with nothing recorded yet."""
        if self._watched_by is not watch.folders:  # another watch, or other folders
            self.watched.clear()
            self._watched_by = watch.folders
        self.active, self.context = watch, ""
        self.started.clear()
        self.traced_code.clear()
        self.now = self.started.setdefault("", set())
        self._observe_dynamo()
        self.rest_while_dynamo_compiles()
        if self._hooked:  # a watch started again without a stop
            self._hook.restart()  # type: ignore[union-attr]
            self._running()
        self.hook(True)

    def end(self) -> None:
        self.hook(False)
        self.active = None

    def switch(self, context: str) -> None:
        self.context = context
        self.now = self.started.setdefault(context, set())
        self.rest_while_dynamo_compiles()  # again: a test may have called torch._dynamo.reset()
        if self._hooked:
            self._hook.restart()  # type: ignore[union-attr]  # each code object reports once more, in this context
            self._running()

    def hook(self, on: bool) -> None:
        """Turn the hook on or off (the functions running then count for the context: they go on in it)."""
        if on == self._hooked:
            return
        if self._hook is None:
            self._hook = _hook(self)
        self._hooked = on
        if on:
            self._hook.restart()
            self._running()
        self._hook.on(on)

    def judge(self, filename: str) -> bool:
        """Whether the active watch watches a code object's file, kept for the hooks' next call (a thread that
        still runs the 3.11 hook after a stop is told no, and nothing is kept)."""
        if self.active is None:
            return False
        found = self.watched[filename] = self.active.watches(filename)
        return found

    def _running(self) -> None:
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            inside = self.watched.get(code.co_filename)
            if inside or (inside is None and self.judge(code.co_filename)):
                self.now.add((code.co_filename, code.co_qualname))
            frame = frame.f_back  # type: ignore[assignment]

    def _observe_dynamo(self) -> None:
        """Keep each new TracingContext's list of traced code objects (not the context: it holds the graph)."""
        if self._dynamo_observed:
            return
        try:
            from torch._guards import TracingContext
        except ImportError:
            return
        self._dynamo_observed = True
        original = TracingContext.__init__
        if getattr(original, "_kexport_observed", False):
            return

        def init(context: Any, *args: Any, **kwargs: Any) -> None:
            original(context, *args, **kwargs)
            traced = getattr(context, "traced_code", None)
            if self.active is not None and isinstance(traced, list):
                self.traced_code.append((self.context, traced))

        init._kexport_observed = True  # type: ignore[attr-defined]
        TracingContext.__init__ = init  # type: ignore[method-assign]

    def rest_while_dynamo_compiles(self) -> None:
        """Pause the hook from the start of each dynamo compile to its end, wherever it is started (a library's
        test that calls ``torch.compile``; the compile step pauses it already). Registered again whenever the
        watch starts or switches context, since ``torch._dynamo.reset()`` (which tests call) drops every
        callback. A torch without the callbacks keeps the hook on."""
        try:
            from torch._dynamo.callback import callback_handler
        except ImportError:
            return
        if self._compile_started not in callback_handler.start_callbacks:
            callback_handler.register_start_callback(self._compile_started)
        if self._compile_ended not in callback_handler.end_callbacks:
            callback_handler.register_end_callback(self._compile_ended)

    def _compile_started(self, *_: Any) -> None:
        if self.active is not None:
            self.active._rest(True)

    def _compile_ended(self, *_: Any) -> None:
        if self.active is not None:
            self.active._rest(False)


_PROCESS = _ProcessWatch()


class CodeWatch:
    """Record the library's and the project's code one case runs: :meth:`start` before its eager run,
    :meth:`code` whenever its record is sent, :meth:`stop` when it is done."""

    def __init__(self, places: CodePlaces, folders: Iterable[str], digests: SourceDigests | None = None):
        self.places = places
        self.base_folders = list(folders)
        self.folders: list[str] = []
        self._omit: list[str] = []
        self.digests = digests or SourceDigests()
        self._tracing = False  # whether the hook records (paused by :meth:`lines` or :meth:`_rest`)
        self._resting = False  # paused by :meth:`_rest` for a dynamo compile (not by :meth:`lines`)
        self._started: dict[str, set[Started]] = {}  # what the last start recorded, once it stopped
        self._traced: list[tuple[str, list[Any]]] = []

    def start(self, more_folders: Iterable[str] = ()) -> None:
        """Watch from now on, the base folders and ``more_folders`` (a test case's tests)."""
        if _PROCESS.active is not None and _PROCESS.active is not self:
            _PROCESS.active.stop()
        folders = sorted({os.path.realpath(f) for f in [*self.base_folders, *more_folders] if f})
        if folders != self.folders:
            self.folders, self._omit = folders, self._omitted(folders)
        self._tracing, self._resting = True, False
        _PROCESS.begin(self)
        self._started, self._traced = _PROCESS.started, _PROCESS.traced_code

    def lines(self, on: bool) -> None:
        """Pause (``False``) or resume the hook; dynamo's traced code is kept either way."""
        if on:
            self._resting = False  # resumed by its owner: a compile's end must not resume it again
        if on != self._tracing:
            self._tracing = on
            if _PROCESS.active is self:
                _PROCESS.hook(on)

    def _rest(self, on: bool) -> None:
        """Pause the hook for a dynamo compile (``on``), and resume it after, unless it was paused already."""
        if on and self._tracing:
            self._resting = True
            self.lines(False)
        elif not on and self._resting:
            self._resting = False
            self.lines(True)

    def stop(self) -> None:
        self._resting = False
        self._tracing = False
        if _PROCESS.active is self:
            _PROCESS.end()
            # what it recorded stays readable (:meth:`code`) while another watch starts
            self._started = {context: set(found) for context, found in _PROCESS.started.items()}
            self._traced = list(_PROCESS.traced_code)

    @property
    def context(self) -> str:
        return _PROCESS.context

    def switch(self, context: str) -> None:
        """What runs from now on is ``context``'s (:meth:`code_by_context`; a test suite's module, say)."""
        if context != _PROCESS.context:
            _PROCESS.switch(context)

    def code(self) -> dict[str, str]:
        """``{ref: digest}`` of what ran since :meth:`start`."""
        merged: dict[str, set[str | None]] = {}
        for files in self._functions_by_context().values():
            for path, functions in files.items():
                merged.setdefault(path, set()).update(functions)
        return self._refs(merged)

    def code_by_context(self) -> dict[str, dict[str, str]]:
        """``{context: {ref: digest}}`` of what ran since :meth:`start`, in each context :meth:`switch` named
        ("" before the first switch)."""
        return {context: self._refs(files) for context, files in self._functions_by_context().items()}

    def _functions_by_context(self) -> dict[str, dict[str, set[str | None]]]:
        """``{context: {path: the outermost functions that ran there (None: its top level)}}``, from the hook's
        code objects and from what dynamo traced."""
        found: dict[str, dict[str, set[str | None]]] = {}

        def add(context: str, filename: str, qualname: str) -> None:
            path = os.path.realpath(filename)
            digests = self.digests.of_file(path)
            if digests is not None:
                found.setdefault(context, {}).setdefault(path, set()).add(digests.function_named(qualname))

        for context, started in list(self._started.items()):
            for filename, qualname in list(started):
                add(context, filename, qualname)
        for context, traced in self._traced:
            for code in list(traced):
                if self.watches(code.co_filename):
                    add(context, code.co_filename, getattr(code, "co_qualname", code.co_name))
        return found

    def _refs(self, files: dict[str, set[str | None]]) -> dict[str, str]:
        seen: dict[str, str] = {}
        for path, functions in files.items():
            digests = self.digests.of_file(path)
            if digests is not None:
                self._add(path, digests, functions, seen)
        return dict(sorted(seen.items()))

    def _omitted(self, folders: list[str]) -> list[str]:
        """The probe's own code, and installed packages under a watched folder (a case module beside the
        project's virtual environment must not watch torch), unless the library itself is installed there."""
        patterns = [os.path.join(_OWN_PACKAGE, "*")]
        library = self.places.library_dir + os.sep
        for folder in folders:
            for installed in ("site-packages", "dist-packages"):
                pattern = os.path.join(folder, "*", installed, "*")
                if not fnmatch.fnmatch(library, pattern):
                    patterns.append(pattern)
        return patterns

    def watches(self, filename: str) -> bool:
        """Whether a code object's file is watched (in a watched folder, and not omitted)."""
        path = os.path.realpath(filename)
        return any(path.startswith(folder + os.sep) for folder in self.folders) and \
            not any(fnmatch.fnmatch(path, pattern) for pattern in self._omit)

    def _add(self, path: str, digests: Any, functions: set[str | None], seen: dict[str, str]) -> None:
        ran = {name for name in functions if name is not None}
        if not ran:  # only its top level ran: importing it (importing kornia runs every file's) is no dependency
            return
        ref = self.places.ref_for(path)
        for name in ran:
            seen[f"{ref}::{name}"] = digests.functions[name]
        # and on the imports, constants and classes of its file that it reads (not on the file's whole top level:
        # adding an import or a case to a file re-measured every case that ran a function of it)
        for part, digest in digests.globals_of(ran).items():
            seen[f"{ref}::{part}"] = digest
