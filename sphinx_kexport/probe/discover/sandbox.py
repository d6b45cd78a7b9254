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


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`ExampleTimeout` in the running code once it has used ``seconds`` of CPU time (main thread
    of a POSIX process only).

    CPU time, not wall time: the examples run beside other work (the survey's workers, another child
    process), and what discovery finds must not depend on how busy the machine was. An example that waits
    instead of computing is stopped after ``HANG_FACTOR`` times the limit in wall time: when that time
    comes, an example that used at least ``WAITING_SHARE`` of a core in it is computing on a busy machine,
    and gets that time again (its CPU limit still stops it); one that used less is waiting.
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

    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
