"""Guards around running a library's docstring examples and tests: no network, a time limit, and a scratch
working directory.

An example that fetches pretrained weights or a data set must be skipped at
once, not wait on a network that may hang or be absent: every way out
(a host name lookup, ``socket.connect``, ``urllib``, ``torch.hub``) raises :class:`DownloadBlocked`
while the guard is on. The time limit counts the example's CPU time (``SIGPROF``;
``SIGALRM`` catches one that hangs), so it only applies in the main thread of a
POSIX process (elsewhere an example simply runs on).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator


class DownloadBlocked(RuntimeError):
    """Raised when an example tries to reach the network while discovery runs."""


class ExampleTimeout(Exception):
    """Raised inside an example that ran past its time limit (not a RuntimeError, so few handlers catch it)."""


def _refuse(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        target = next((a for a in args if isinstance(a, (str, tuple))), "")
        raise DownloadBlocked(f"network access blocked during discovery ({what}{f' {target!r}' if target else ''})")

    return refuse


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


@contextlib.contextmanager
def network_blocked() -> Iterator[None]:
    """Make every download attempt raise :class:`DownloadBlocked` immediately."""
    patches: list[tuple[Any, str, Any]] = [
        # name lookup comes first: a library that bound urlopen at import (kornia's downloader) still
        # resolves the host, and a failed lookup looks transient to it, so it would retry with back-off
        (socket, "getaddrinfo", _refuse("socket.getaddrinfo")),
        (socket.socket, "connect", _refuse("socket.connect")),
        (socket.socket, "connect_ex", _refuse("socket.connect")),
        (socket, "create_connection", _refuse("socket.create_connection")),
        (urllib.request, "urlopen", _refuse("urllib.request.urlopen")),
        (urllib.request, "urlretrieve", _refuse("urllib.request.urlretrieve")),
    ]
    try:
        import torch.hub

        patches += [(torch.hub, "load_state_dict_from_url", _refuse("torch.hub.load_state_dict_from_url")),
                    (torch.hub, "download_url_to_file", _refuse("torch.hub.download_url_to_file"))]
    except ImportError:
        pass
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def is_download_blocked(exc: BaseException) -> bool:
    """True when ``exc`` or anything in its cause/context chain is a blocked download."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DownloadBlocked):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


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
