"""While a worker rebuilds one discovered case through its case module, the module's discovery calls give that
one case alone.

A worker builds a discovered case from its discovery cache entry, or from its one example or its one test run
again (run/case_builder.py). Only when the case built that way is not the one the inventory described (the
case module changed it after discovery: another ``atol``, a ``skip``) does the worker import the case module; its
``cases_from_docstrings`` and ``cases_from_tests`` calls then build the asked-for case alone, from its example
or its test, and return nothing for the other calls: never every example of the package, never the whole test
suite (e3nn's o3 suite ran again for two docstring cases and took the case past its time limit).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..cases.inventory import DiscoveryRef, SuiteRef
from ..cases.registry import CaseSpec


@dataclass
class Focus:
    ref: DiscoveryRef | SuiteRef | None = None  # the discovery call and the example or test of the asked-for case
    name: str = ""  # the name its discovery gave it


FOCUS = Focus()


@contextlib.contextmanager
def focused_on(ref: DiscoveryRef | SuiteRef, name: str) -> Iterator[None]:
    """While active, the discovery calls build the case ``name`` of ``ref`` alone (:data:`FOCUS`)."""
    FOCUS.ref, FOCUS.name = ref, name
    try:
        yield
    finally:
        FOCUS.ref, FOCUS.name = None, ""


def focused_cases(kind: type, made_here: Callable[[Any], bool],
                  build: Callable[[Any, str], CaseSpec | None]) -> list[CaseSpec] | None:
    """What a discovery call of ``kind`` (DiscoveryRef or SuiteRef) gives while a worker is focused: the
    asked-for case (``build(ref, name)``) when ``made_here(ref)`` says the case came from this call, else
    nothing. None when no worker is focused: the call discovers as usual."""
    ref = FOCUS.ref
    if ref is None:
        return None
    if isinstance(ref, kind) and made_here(ref):
        spec = build(ref, FOCUS.name)
        return [spec] if spec is not None else []
    return []
