"""Child processes that do not outlive the probe."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading


def die_with_parent() -> None:
    """A ``kill -9`` of the probe must not leave workers or inventory children behind, burning CPU and holding
    gigabytes. Call first thing in a child started by multiprocessing.

    Two guards: Linux kills this process when the process that forked it ends (PR_SET_PDEATHSIG), and a
    thread waits on the pipe multiprocessing keeps open from the probe to this child (its sentinel), which
    closes when the probe dies, whatever process did the fork. The second is what holds for a child forked
    by the warm fork server (``warm_start``): the server outlives a killed probe until its children end."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    parent = multiprocessing.parent_process()
    sentinel = getattr(parent, "sentinel", None)
    if sentinel is not None:
        threading.Thread(target=_die_when_closed, args=(sentinel,), name="kexport-parent-watch", daemon=True).start()


def _die_when_closed(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os.kill(os.getpid(), signal.SIGKILL)
