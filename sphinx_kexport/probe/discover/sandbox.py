"""Guards around running a library's docstring examples and tests: a time limit and a scratch working
directory (no network: base/network.py).

The time limit counts the example's CPU time (``SIGPROF``;
``SIGALRM`` catches one that hangs), so it only applies in the main thread of a
POSIX process (elsewhere an example simply runs on).
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from ..base.errors import ProbeError


class ExampleTimeout(ProbeError):
    """Raised inside an example that ran past its time limit (not a RuntimeError, so few handlers catch it)."""


@contextlib.contextmanager
def scratch_directory() -> Iterator[Path]:
    """Work in a new empty directory, removed afterwards: an example or a test that writes a file by a relative
    name (kornia's point-cloud tests write ``pointcloud.ply``) writes it there, not where the probe was run."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="kexport-scratch-") as where:
        os.chdir(where)
        try:
            yield Path(where)
        finally:
            os.chdir(previous)


HANG_FACTOR = 3  # an example that waits (a lock, a sleep) is stopped after this many times the limit in wall time
# a share of a core below which an example counts as waiting, not computing: on two cores shared by five busy
# processes a computing example still gets about 40 %
WAITING_SHARE = 0.1


# the running limits, innermost last: (counts from new calls, restart); a nested limit re-arms the process's
# one pair of timers, so only the innermost may restart them
_RUNNING: list[tuple[bool, Any]] = []


@contextlib.contextmanager
def time_limit(seconds: float, *, from_new_calls: bool = False) -> Iterator[None]:
    """Raise :class:`ExampleTimeout` in the running code once it has used ``seconds`` of CPU time (main thread
    of a POSIX process only).

    CPU time, not wall time: the examples run beside other work (the survey's workers, another child
    process), and what discovery finds must not depend on how busy the machine was. An example that waits
    instead of computing is stopped after ``HANG_FACTOR`` times the limit in wall time: when that time
    comes, an example that used at least ``WAITING_SHARE`` of a core in it is computing on a busy machine,
    and gets that time again (its CPU limit still stops it); one that used less is waiting.

    ``from_new_calls``: the time counts again from each call :func:`new_call_made` reports (a test's call of a
    configuration the recorder had not seen): a test is stopped once it has gone ``seconds`` without one, so
    one whose calls come between long computations keeps them all, and one that only checks statistics
    after its first calls (e3nn's ``test_normalized``) still stops early.
    """
    usable = seconds > 0 and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return
    wall = seconds * HANG_FACTOR
    used = [time.process_time()]  # the CPU time when the current wall period began

    def expire(signum: int, frame: Any) -> None:
        if signum == signal.SIGPROF:
            raise ExampleTimeout(f"ran past the {seconds:g} s limit")
        now = time.process_time()
        if now - used[0] >= WAITING_SHARE * wall:  # starved, not stuck: another period
            used[0] = now
            signal.setitimer(signal.ITIMER_REAL, wall)
            return
        raise ExampleTimeout(f"waited past {wall:g} s without using its {seconds:g} s of CPU time")

    def arm() -> None:
        used[0] = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, seconds)
        signal.setitimer(signal.ITIMER_REAL, wall)

    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    entry = (from_new_calls, arm)
    _RUNNING.append(entry)
    arm()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        _RUNNING.remove(entry)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def new_call_made() -> None:
    """The running code made a call of a new configuration: a limit that counts from new calls starts again."""
    if _RUNNING and _RUNNING[-1][0]:
        _RUNNING[-1][1]()


def timeout_in(exc: BaseException | None) -> ExampleTimeout | None:
    """The :class:`ExampleTimeout` that ``exc`` is or wraps: a limit that expires while dynamo or inductor
    compiles inside a test comes out as their error (``BackendCompilerFailed``), the timeout as its cause."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ExampleTimeout):
            return exc
        seen.add(id(exc))
        inner = getattr(exc, "inner_exception", None)  # dynamo's wrappers keep the original here too
        exc = inner if isinstance(inner, BaseException) else exc.__cause__ or exc.__context__
    return None
