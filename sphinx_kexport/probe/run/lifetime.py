"""Child processes that do not outlive the probe."""

from __future__ import annotations

import signal


def die_with_parent() -> None:
    """Ask Linux to kill this process when the thread that started it ends (PR_SET_PDEATHSIG): a ``kill -9``
    of the probe must not leave workers or inventory children behind, burning CPU and holding gigabytes.
    Best effort: nothing happens elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
