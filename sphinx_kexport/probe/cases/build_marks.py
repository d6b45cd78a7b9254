"""Marks between the cases a case module builds, for the watch that records what building each one ran
(:mod:`..measure.build_watch`). Standard library only: ``case()`` calls it whether or not anything listens."""

from __future__ import annotations

from typing import Callable

_listeners: list[Callable[[str | None], None]] = []


def case_built(name: str | None) -> None:
    """``case()`` registered ``name``: what ran since the previous mark built it. ``None``: what ran since then
    built no one case (a whole ``cases_from_docstrings()`` or ``cases_from_tests()`` call)."""
    for listener in list(_listeners):
        listener(name)


def discovery_began() -> None:
    """``cases_from_docstrings()`` or ``cases_from_tests()`` begins: what it runs is no one case's, so the watch
    rests until its :func:`case_built` ``(None)`` (reading the discovery cache is most of a module's import)."""
    for listener in list(_listeners):
        listener(DISCOVERING)


DISCOVERING = "\0discovering"  # what :func:`discovery_began` tells the listeners (no case has this name)


def listen(listener: Callable[[str | None], None]) -> Callable[[], None]:
    """Call ``listener`` at each mark until the returned function is called."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener)
