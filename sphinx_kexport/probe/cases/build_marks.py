"""Marks between the cases a case module builds, for the watch that records what building each one ran
(:mod:`..measure.build_watch`). Standard library only: ``case()`` calls it whether or not anything listens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union


@dataclass(frozen=True)
class DiscoveryBegan:
    """The mark :func:`discovery_began` gives: a type of its own, so that no case name can be taken for it."""


DISCOVERY_BEGAN = DiscoveryBegan()
Mark = Union[str, None, DiscoveryBegan]  # a case's name, None (built no one case), or DISCOVERY_BEGAN

_listeners: list[Callable[[Mark], None]] = []


def case_built(name: str | None) -> None:
    """``case()`` registered ``name``: what ran since the previous mark built it. ``None``: what ran since then
    built no one case (a whole ``cases_from_docstrings()`` or ``cases_from_tests()`` call)."""
    for listener in list(_listeners):
        listener(name)


def discovery_began() -> None:
    """``cases_from_docstrings()`` or ``cases_from_tests()`` begins: what it runs is no one case's, so the watch
    rests until its :func:`case_built` ``(None)`` (reading the discovery cache is most of a module's import)."""
    for listener in list(_listeners):
        listener(DISCOVERY_BEGAN)


def listen(listener: Callable[[Mark], None]) -> Callable[[], None]:
    """Call ``listener`` at each mark until the returned function is called."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener)
