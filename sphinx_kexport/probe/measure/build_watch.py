"""What building each hand-written case ran: the library's and the project's code between its ``case()`` call
and the one before, watched while the inventory's child imports its case module.

A case module's top level builds its cases one after another (``case("A", lib.Blur(3), [x])`` builds the
``Blur`` and then registers it), so the code that ran since the previous ``case()`` call built this one. The
record of each of the case's cells then names that code beside what measuring it ran (survey/api.py), and a
change to a constructor or to a helper that makes the inputs measures the case again, as a change to
``forward`` does. Whatever ran before the first case (the module's imports' functions, the whole module's
setup) goes to the first case: more than it needs, never less. The code run by ``cases_from_docstrings()`` and
``cases_from_tests()`` is no one case's: the discovery caches follow it (discover/cache.py,
discover/suite/suite_records.py), and the cases they give get nothing here; the watch rests while they run. The
library is imported before the watch starts: importing it is no dependency (measure/code_watch.py), and
tracing it was most of the watch's cost.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterable

from ..base.code_digest import CodePlaces, SourceDigests
from ..cases.build_marks import DiscoveryBegan, Mark, listen
from .code_watch import CodeWatch


class BuildWatch:
    """``with BuildWatch(places, folders) as watch: import the module``, then :meth:`code_of` each case."""

    def __init__(self, places: CodePlaces, folders: Iterable[str], digests: SourceDigests | None = None):
        self._watch = CodeWatch(places, folders, digests)
        self._library = places.library
        self._segment = 0
        self._discovering = 0  # discovery calls under way: the watch rests
        self._built_by: dict[str, str] = {}  # case name -> the context its build ran in
        self._unlisten: Any = None
        self._by_context: dict[str, dict[str, str]] | None = None

    def __enter__(self) -> BuildWatch:
        if self._library:  # importing it is no case's building (nor a dependency: code_watch.py), and it is slow
            importlib.import_module(self._library)  # under the tracer
        self._unlisten = listen(self._mark)
        self._watch.start()
        self._watch.switch(self._context())
        return self

    def __exit__(self, *exc: object) -> None:
        self._watch.stop()
        self._unlisten()

    def _context(self) -> str:
        return f"build {self._segment}"

    def _mark(self, name: Mark) -> None:
        if isinstance(name, DiscoveryBegan):  # rest until its own case_built(None) (one discovery may call another)
            self._discovering += 1
            self._watch.lines(False)
            return
        if name is None and self._discovering:
            self._discovering -= 1
        if self._discovering:
            return
        if name is not None:
            self._built_by.setdefault(name, self._context())
        self._segment += 1
        self._watch.lines(True)
        self._watch.switch(self._context())

    def code_of(self, name: str) -> dict[str, str]:
        """``{ref: digest}`` of what building the case registered as ``name`` ran ({} for one it did not see)."""
        if self._by_context is None:
            self._by_context = self._watch.code_by_context()
        context = self._built_by.get(name)
        return dict(self._by_context.get(context, {})) if context else {}
