"""Which code of the library and the project one case runs, while a worker measures it.

What building the case ran is watched elsewhere, where its case module is imported for the inventory
(:mod:`.build_watch`). From the eager run on, two sources, because one cannot see everything:

- coverage.py's tracer sees every line Python runs: the eager run, ``torch.export`` and the ONNX exporter
  (both run the library's Python code, with fake tensors), and whatever runs outside a graph;
- dynamo does not run the code it compiles, it reads it: the functions it traced (inlined ones included, and
  the branches taken only under ``torch.compiler.is_compiling()``) are in each compile's ``TracingContext``.
  A private attribute of torch's; where a torch lacks it, compile-only code is not seen (the rest still is).
  So the tracer is paused while a case is compiled (:meth:`CodeWatch.lines`), and during any dynamo compile
  that starts while it traces (a library's test that calls ``torch.compile``; dynamo's compile callbacks):
  under Python 3.11 it is called for every Python frame torch opens, watched or not, and dynamo and inductor
  open many (compile steps took 39 % longer).

Only the library's folder and the project's folders are traced (the case modules' folders, the tests'), never
torch or the standard library: those are keyed by their versions. The result is ``{ref: digest}``
(:mod:`..base.code_digest`): each function that ran, and what of its file's top level it reads. A file whose
top level ran but none of its functions (a module imported) is left out: importing a library runs the top
level of every file, and each case would depend on all of them.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any, Iterable

from ..base.code_digest import CodePlaces, SourceDigests

_OWN_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # sphinx_kexport/
# (the watch's context then, the traced_code list) of every TracingContext made while a watch is on
_traced_code: list[tuple[str, list[Any]]] = []
_watching = False
_context = {"now": ""}  # the context :meth:`CodeWatch.switch` set last
_active: list["CodeWatch"] = []  # the watch that is on (at most one), for dynamo's compile callbacks


def _observe_dynamo() -> None:
    """Keep each new TracingContext's list of traced code objects (not the context: it holds the graph)."""
    try:
        from torch._guards import TracingContext
    except ImportError:
        return
    original = TracingContext.__init__
    if getattr(original, "_kexport_observed", False):
        return

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        traced = getattr(self, "traced_code", None)
        if _watching and isinstance(traced, list):
            _traced_code.append((_context["now"], traced))

    init._kexport_observed = True  # type: ignore[attr-defined]
    TracingContext.__init__ = init  # type: ignore[method-assign]


def _started(*_: Any) -> None:
    if _active:
        _active[0]._rest(True)


def _ended(*_: Any) -> None:
    if _active:
        _active[0]._rest(False)


def _rest_while_dynamo_compiles() -> None:
    """Pause the line tracer from the start of each dynamo compile to its end, wherever it is started (a
    library's test that calls ``torch.compile``; the compile step pauses it already): dynamo and inductor run
    much Python of torch's, which the tracer is called for under Python 3.11, and what dynamo traced of the
    watched code is in its ``TracingContext`` anyway. Registered again whenever the watch starts or switches
    context, since ``torch._dynamo.reset()`` (which tests call) drops every callback. A torch without the
    callbacks keeps tracing."""
    try:
        from torch._dynamo.callback import callback_handler
    except ImportError:
        return
    if _started not in callback_handler.start_callbacks:
        callback_handler.register_start_callback(_started)
    if _ended not in callback_handler.end_callbacks:
        callback_handler.register_end_callback(_ended)


class CodeWatch:
    """Record the library's and the project's code one case runs: :meth:`start` before its eager run,
    :meth:`code` whenever its record is sent, :meth:`stop` when it is done."""

    def __init__(self, places: CodePlaces, folders: Iterable[str], digests: SourceDigests | None = None):
        try:
            import coverage  # noqa: F401
        except ImportError:
            raise ImportError("the probe records the code each case runs with coverage.py, which is not installed: "
                              "pip install 'sphinx-kexport[probe]' (or pip install coverage)") from None
        self.places = places
        self.base_folders = list(folders)
        self.folders: list[str] = []
        self._omit: list[str] = []
        self.digests = digests or SourceDigests()
        self._coverage: Any = None
        self._tracing = False
        self._resting = False  # paused by :meth:`_rest` for a dynamo compile (not by :meth:`lines`)
        _observe_dynamo()

    def start(self, more_folders: Iterable[str] = ()) -> None:
        """Watch from now on, the base folders and ``more_folders`` (a test case's tests)."""
        import coverage

        global _watching
        folders = sorted({os.path.realpath(f) for f in [*self.base_folders, *more_folders] if f})
        if self._coverage is None or folders != self.folders:
            self.folders, self._omit = folders, self._omitted(folders)
            self._coverage = coverage.Coverage(
                data_file=None, config_file=False, branch=False,
                include=[os.path.join(folder, "*") for folder in folders], omit=self._omit)
            # contexts (which test file ran what) need a settrace core: the sys.monitoring one drops them without
            # a word, and it is the default from Python 3.14 on, or on 3.12+ when a CI sets COVERAGE_CORE=sysmon
            self._coverage.set_option("run:core", "ctrace")  # coverage falls back to its Python tracer by itself
            # a case that runs none of the watched code is no news; a module imported before the watch, neither
            self._coverage.set_option("run:disable_warnings", ["no-data-collected", "module-not-measured",
                                                               "already-imported", "module-not-imported"])
        _traced_code.clear()
        _context["now"] = ""
        self._coverage.erase()
        _watching = True
        self._tracing = True
        self._resting = False
        _active[:] = [self]
        _rest_while_dynamo_compiles()
        self._coverage.start()

    def lines(self, on: bool) -> None:
        """Pause (``False``) or resume the line tracer; dynamo's traced code is kept either way."""
        if on:
            self._resting = False  # resumed by its owner: a compile's end must not resume it again
        if on != self._tracing:
            self._tracing = on
            (self._coverage.start if on else self._coverage.stop)()
            if on and _context["now"]:
                self._coverage.switch_context(_context["now"])

    def _rest(self, on: bool) -> None:
        """Pause the tracer for a dynamo compile (``on``), and resume it after, unless it was paused already."""
        if on and self._tracing:
            self._resting = True
            self.lines(False)
        elif not on and self._resting:
            self._resting = False
            self.lines(True)

    def stop(self) -> None:
        global _watching
        _watching = False
        _active.clear()
        self._resting = False
        if self._tracing:
            self._tracing = False
            self._coverage.stop()

    @property
    def context(self) -> str:
        return _context["now"]

    def switch(self, context: str) -> None:
        """What runs from now on is ``context``'s (:meth:`code_by_context`; a test suite's module, say)."""
        if context != _context["now"]:
            _context["now"] = context
            _rest_while_dynamo_compiles()  # again: a test may have called torch._dynamo.reset()
            if self._tracing:
                self._coverage.switch_context(context)

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
        """``{context: {path: the outermost functions that ran there (None: its top level)}}``, from the tracer's
        lines and from what dynamo traced."""
        found: dict[str, dict[str, set[str | None]]] = {}
        data = self._coverage.get_data()
        for path in data.measured_files():
            digests = self.digests.of_file(path)
            if digests is None:
                continue
            for line, contexts in (data.contexts_by_lineno(path) or {}).items():
                for context in contexts or [""]:
                    found.setdefault(context, {}).setdefault(path, set()).add(digests.function_at(line))
        for context, traced in _traced_code:
            for code in list(traced):
                path = os.path.realpath(code.co_filename)
                if not self._watched(path):
                    continue
                digests = self.digests.of_file(path)
                if digests is not None:
                    name = digests.function_named(getattr(code, "co_qualname", code.co_name))
                    found.setdefault(context, {}).setdefault(path, set()).add(name)
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

    def _watched(self, path: str) -> bool:
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
