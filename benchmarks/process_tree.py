"""CPU seconds of a command's whole process tree, the processes that outlive their parent included.

``RUSAGE_CHILDREN`` counts a process only once its parent has waited for it, and that parent in turn has
been waited for: the probe's workers and inventory children are forked from its fork server, which the
probe's process does not wait for, so a benchmark that read ``RUSAGE_CHILDREN`` after the probe exited
counted the probe's parent alone ("CPU per configuration: probe 0.01 s"). Here the benchmark becomes a
*subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``): every orphaned descendant is handed to it, and it
waits for them all after the command ends, so their CPU is counted too.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import time

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux); False where the call is not available."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children_times() -> tuple[float, float]:
    """(user, system) CPU seconds of every waited-for descendant so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def children_cpu() -> float:
    """CPU seconds (user + system) of every waited-for descendant so far."""
    return sum(children_times())


def reap_descendants(deadline_s: float = 60.0) -> None:
    """Wait for every adopted descendant still running (a fork server winding down), at most ``deadline_s``."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def run_counted_split(command: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, float, float, float]:
    """(the finished command, its wall seconds, the user and the system CPU seconds of its whole tree)."""
    if not become_subreaper():
        raise SystemExit("this benchmark counts the CPU of every process it starts, which needs Linux's "
                         "PR_SET_CHILD_SUBREAPER")
    (user, system), began = children_times(), time.monotonic()
    done = subprocess.run(command, **kwargs)
    wall = time.monotonic() - began
    reap_descendants()
    user_after, system_after = children_times()
    return done, wall, user_after - user, system_after - system


def run_counted(command: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the finished command, its wall seconds, the CPU seconds of its whole tree)."""
    done, wall, user, system = run_counted_split(command, **kwargs)
    return done, wall, user + system
