"""What /proc says of a process (Linux): whether it still runs, and which processes it started."""

from __future__ import annotations

from pathlib import Path


def _stat_fields(pid: int | str) -> list[str]:
    """/proc/PID/stat's fields after the command name (in parentheses, which may hold spaces): state, parent, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Running (a zombie no one reaped is dead: the container's init may not reap)."""
    try:
        state = _stat_fields(pid)[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def children(pid: int, running: str) -> list[int]:
    """The live children of ``pid`` whose command line holds ``running``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int(_stat_fields(entry.name)[1]) == pid and alive(int(entry.name)) \
                    and running in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):  # it ended meanwhile
            continue
    return found


def holding(variable: str, value: str) -> list[int]:
    """The live processes whose environment sets ``variable`` to ``value``: a probe and every worker and child
    it started with a test's own marker (a variable set only for that test's run)."""
    wanted = f"{variable}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if wanted in (entry / "environ").read_bytes().split(b"\0") and alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:  # it ended meanwhile, or is another user's
            continue
    return found
