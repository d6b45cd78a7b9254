"""A worker's cases: built one at a time, exactly as the inventory described them.

A discovered case is built from its discovery cache entry (or its one example, or its one test, run again), a
hand-written one from its case module imported without the discovered cases. A worker never runs a whole test
suite, nor every example of a package, to build one case. Here, not in cases/, because building a
discovered case is discovery's work (the stages import one way: tests/test_design.py).
"""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

from ..cases.fingerprint import case_definition, definition_digest
from ..cases.inventory import DiscoveryRef, LoadError, Source, SuiteRef
from ..cases.loader import imported_cases
from ..cases.registry import CaseSpec
from ..discover.docstrings.docstrings import discovered_case, docstring_cases_left_out
from ..discover.focus import focused_on
from ..discover.suite.suite import suite_case, suite_cases_left_out


class CaseModules:
    """A worker's case modules: the one that registers the asked-for case is imported on demand.

    Only one case module is kept at a time, so a worker holds one area's cases,
    not the whole survey's, and a worker that replaces a killed one starts at
    once. Imported for a hand-written case, a module builds no discovered cases
    (:func:`~..discover.docstrings.docstring_cases_left_out`); imported for a
    discovered case, its discovery calls build that one case alone
    (:mod:`~..discover.focus`): never every example, never a whole test suite.
    """

    def __init__(self, sources: list[Source]):
        self.sources = {source.module: source for source in sources}
        self.loaded: tuple[str, Any] = ("", None)  # (module, how it was imported)
        self.cases: dict[str, CaseSpec] = {}

    def get(self, module: str, local_name: str, *, focus: DiscoveryRef | SuiteRef | None = None,
            with_docstrings: bool = False) -> CaseSpec | None:
        """The case ``local_name`` of ``module``, imported without its discovered cases, with the one of
        ``focus`` alone, or (``with_docstrings``) with its docstring cases but none from the tests."""
        if module not in self.sources:
            raise LoadError(f"case module {module!r} is not among the case sources; run the probe again")
        how = (focus, local_name) if focus is not None else with_docstrings
        if self.loaded != (module, how):
            self._load(module, how)
        return self.cases.get(local_name)

    def _load(self, module: str, how: Any) -> None:
        if self.loaded[0]:
            self.cases = {}
            sys.modules.pop(self.loaded[0], None)  # its cases (and discovered examples) are freed
            gc.collect()
        self.loaded = (module, how)
        if isinstance(how, tuple):
            context: Any = focused_on(*how)
        elif how:
            context = suite_cases_left_out()
        else:
            context = docstring_cases_left_out()
        with context:
            for spec in imported_cases(self.sources[module]):
                self.cases.setdefault(spec.name, spec)


class CaseBuilder:
    """Build, in a worker, exactly the case the inventory described: a discovered case from its discovery
    cache entry or its one example or test run again, then (when the case module changed it after discovery)
    through its module with that one case discovered alone; a hand-written one from its module imported
    without the discovered cases, then with its docstring cases. Never a whole test suite."""

    def __init__(self, sources: list[Source]):
        self.modules = CaseModules(sources)

    def build(self, name: str, module: str, local_name: str, discovery: DiscoveryRef | SuiteRef | None,
              definition: dict[str, Any] | None) -> CaseSpec:
        """The case as described by ``definition`` (its name aside); LoadError naming the fields that differ."""
        wanted = definition_digest(definition) if definition else ""
        attempts = []
        if isinstance(discovery, SuiteRef):
            alone = f"its test {discovery.node} run alone"
            attempts.append(lambda: suite_case(discovery, local_name))
        elif discovery is not None:
            alone = f"its example {discovery.example} run alone"
            attempts.append(lambda: discovered_case(discovery, local_name, wanted))
        else:
            alone = ""
            attempts.append(lambda: self.modules.get(module, local_name))
        if discovery is not None:
            attempts.append(lambda: self.modules.get(module, local_name, focus=discovery))
        else:
            attempts.append(lambda: self.modules.get(module, local_name, with_docstrings=True))
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
        facts = ([f"built from {alone}"] if alone else []) + ([f"it differs in: {', '.join(differing)}"]
                                                              if differing else [])
        what = f" ({'; '.join(facts)})" if facts else ""
        cause = " (an example or test whose values depend on what ran before it)" if alone else ""
        raise LoadError(f"{label} no longer registers case {local_name!r} as it did when the probe started{what}; "
                        f"was it edited while the probe ran, or does it change between imports{cause}? "
                        "Run the probe again")


def _as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
