"""Waiting for a condition instead of sleeping a fixed time: a busy machine makes every fixed sleep too short
some day, and an idle one makes it too long every day. The deadline is generous because it is only reached
when the test fails."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

DEADLINE = 60.0  # seconds; a condition that holds returns at once


def wait_until(condition: Callable[[], T], *, what: str, timeout: float = DEADLINE, every: float = 0.05) -> T:
    """Call ``condition`` until it returns something truthy and return that; past ``timeout`` seconds fail,
    saying ``what`` was awaited and the last answer. ``condition`` may raise to fail at once (a process that
    ended before it did what was awaited)."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}; the last answer was {found!r}")
        time.sleep(every)
