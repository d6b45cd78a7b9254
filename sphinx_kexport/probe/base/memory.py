"""How much memory a process of the probe holds and has held (Linux ``/proc``; elsewhere what ``resource`` says).

The peak is ``VmHWM``, not ``getrusage``'s ``ru_maxrss``: Linux keeps ``ru_maxrss`` across ``exec``, so
a probe started by a large process (a test runner holding torch) would report that process's size.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

_earlier_peak_kb = 0  # the peak before a block's own count began (:func:`block_peak`), kept for the case


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
        return max(found, _earlier_peak_kb)
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
    global _earlier_peak_kb
    _earlier_peak_kb = 0
    _clear_peak()


def _clear_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


class BlockPeak:
    """What :func:`block_peak` read: ``kb``, the most resident memory the block held above what the process
    held when it began (0 where ``/proc`` does not tell)."""

    kb = 0


@contextmanager
def block_peak() -> Iterator[BlockPeak]:
    """Count the peak of one block of code afresh, without losing the peak counted so far (the case's own,
    which :func:`peak_rss_kb` still reports afterwards)."""
    global _earlier_peak_kb
    _earlier_peak_kb = max(_earlier_peak_kb, status_kb("VmHWM"))
    counted = _clear_peak()  # where the peak cannot be reset, it is the process's, not the block's: not told
    reading = BlockPeak()
    began = rss_kb()
    try:
        yield reading
    finally:
        peak = status_kb("VmHWM")
        reading.kb = max(0, peak - began) if counted and peak and began else 0


def available_kb() -> int:
    """The memory the system can give without swapping (``MemAvailable``), in KiB; 0 where it does not tell."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


@contextmanager
def address_space_cap(extra_kb: int) -> Iterator[None]:
    """Within the block, allocations past ``extra_kb`` more than the process has mapped now fail (torch raises
    "can't allocate memory", Python ``MemoryError``) instead of growing until the out-of-memory killer ends
    the process. Counts address space, not resident memory, so a block that maps much without touching it
    meets the cap early; a no-op where ``resource`` or ``/proc`` does not tell."""
    try:
        import resource
    except ImportError:  # Windows
        yield
        return
    mapped_kb = status_kb("VmSize")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if not mapped_kb or extra_kb <= 0:
        yield
        return
    cap = (mapped_kb + extra_kb) * 1024
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            cap = min(cap, limit)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))  # a soft limit may go back up to the hard one


def out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` says an allocation failed (a cap of :func:`address_space_cap`, or the machine)."""
    text = str(exc)
    return isinstance(exc, MemoryError) or any(
        words in text for words in ("can't allocate memory", "Cannot allocate memory", "bad_alloc",
                                    "not enough memory"))
