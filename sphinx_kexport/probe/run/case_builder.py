"""A worker's cases: built one at a time, exactly as the inventory described them.

A discovered case is built from its discovery cache entry (or its one example, or its one test), a hand-written
one from its case module imported without the discovered cases. Here, not in cases/, because building a
discovered case is discovery's work (the stages import one way: tests/test_design.py).
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from typing import Any

from ..cases.fingerprint import case_definition, definition_digest
from ..cases.inventory import DiscoveryRef, LoadError, Source, SuiteRef
from ..cases.loader import imported_cases
from ..cases.registry import CaseSpec
from ..discover.docstrings import discovered_case, docstring_cases_left_out
from ..discover.suite import suite_case


class CaseModules:
    """A worker's case modules: the one that registers the asked-for case is imported on demand.

    Only one case module is kept at a time, so a worker holds one area's cases,
    not the whole survey's, and a worker that replaces a killed one starts at
    once. Imported for a hand-written case, a module builds no docstring cases
    (:func:`~..discover.docstrings.docstring_cases_left_out`): a discovered case
    is built alone, from its discovery cache entry (:class:`CaseBuilder`).
    """

    def __init__(self, sources: list[Source]):
        self.sources = {source.module: source for source in sources}
        self.loaded: tuple[str, bool] = ("", False)  # (module, with its docstring cases)
        self.cases: dict[str, CaseSpec] = {}

    def get(self, module: str, local_name: str, *, with_docstrings: bool) -> CaseSpec | None:
        if module not in self.sources:
            raise LoadError(f"case module {module!r} is not among the case sources; run the probe again")
        if self.loaded != (module, with_docstrings):
            self._load(module, with_docstrings)
        return self.cases.get(local_name)

    def _load(self, module: str, with_docstrings: bool) -> None:
        if self.loaded[0]:
            self.cases = {}
            sys.modules.pop(self.loaded[0], None)  # its cases (and discovered examples) are freed
            gc.collect()
        self.loaded = (module, with_docstrings)
        with contextlib.nullcontext() if with_docstrings else docstring_cases_left_out():
            for spec in imported_cases(self.sources[module]):
                self.cases.setdefault(spec.name, spec)


class CaseBuilder:
    """Build, in a worker, exactly the case the inventory described: a discovered case from its discovery
    cache entry (or its one example, or its one test), a hand-written one from its module imported without the
    discovered cases; the long way (the whole module) only when the short one does not give the described case."""

    def __init__(self, sources: list[Source]):
        self.modules = CaseModules(sources)

    def build(self, name: str, module: str, local_name: str, discovery: DiscoveryRef | SuiteRef | None,
              definition: dict[str, Any] | None) -> CaseSpec:
        """The case as described by ``definition`` (its name aside); LoadError naming the fields that differ."""
        attempts = []
        if isinstance(discovery, SuiteRef):
            attempts.append(lambda: suite_case(discovery, local_name))
        elif discovery is not None:
            attempts.append(lambda: discovered_case(discovery, local_name))
        else:
            attempts.append(lambda: self.modules.get(module, local_name, with_docstrings=False))
        attempts.append(lambda: self.modules.get(module, local_name, with_docstrings=True))
        wanted = definition_digest(definition) if definition else ""
        differing: list[str] = []
        for attempt in attempts:
            spec = attempt()
            if spec is None:
                continue
            built = case_definition(spec)
            if not wanted or definition_digest(built) == wanted:
                spec.name = name
                return spec
            described = definition or {}
            differing = differing or sorted(key for key in set(built) | set(described)
                                            if key != "name" and _as_json(built.get(key)) != _as_json(described.get(key)))
        label = self.modules.sources[module].label if module in self.modules.sources else module
        what = f" (it differs in: {', '.join(differing)})" if differing else ""
        raise LoadError(f"{label} no longer registers case {local_name!r} as it did when the probe started{what}; "
                        "was it edited while the probe ran, or does it change between imports? Run the probe again")


def _as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
