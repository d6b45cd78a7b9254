"""How much memory a process of the probe holds and has held (Linux ``/proc``; elsewhere what ``resource`` says).

The peak is ``VmHWM``, not ``getrusage``'s ``ru_maxrss``: Linux keeps ``ru_maxrss`` across ``exec``, so
a probe started by a large process (a test runner holding torch) would report that process's size.
"""

from __future__ import annotations


def status_kb(field: str, pid: int | str = "self") -> int:
    """A ``/proc/<pid>/status`` memory field (``VmHWM``, ``VmRSS``) in KiB; 0 where there is none."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def peak_rss_kb() -> int:
    """The most resident memory this process has held (since :func:`reset_peak`), in KiB."""
    found = status_kb("VmHWM")
    if found:
        return found
    try:
        import resource
    except ImportError:  # Windows
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def rss_kb() -> int:
    """The resident memory this process holds now, in KiB (0 where /proc does not tell)."""
    return status_kb("VmRSS")


def reset_peak() -> None:
    """Start counting the peak afresh (Linux: writing 5 to clear_refs resets VmHWM), so each case's own peak
    is known; the lifetime peak is kept by the caller."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass
