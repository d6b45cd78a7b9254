"""What every subcommand shares: the program's name, the exit statuses and how an error is printed."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

PROG = "python -m sphinx_kexport.probe"
EXIT_OK, EXIT_REGRESSED, EXIT_USAGE, EXIT_TOOL, EXIT_EAGER, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
EXIT_STATUS_HELP = (
    "Exit status: 0 the survey ran (failing cases are data); 2 a mistake in the configuration, the case "
    "modules or the command line; 3 the probe itself could not run (or could not build some case in a worker: "
    "listed at the end, no status recorded for it); 4 the survey ran and wrote the snapshot, "
    "but some cases failed eagerly (a problem with the case or the environment; listed at the end) that the "
    "snapshot did not already record as failing eagerly (one it did is listed, and no news); "
    "5 --stop-after ended the run: the snapshot holds what was finished (complete: false), run again for the rest; "
    "130 interrupted (Ctrl-C, or SIGTERM as a cancelled CI job or `timeout` sends).")


def report_failure(message: str, code: int = EXIT_USAGE) -> int:
    print(f"sphinx-kexport probe: error: {message}", file=sys.stderr)
    return code


def read_two(first: str, second: str) -> tuple[dict, dict]:
    """The two snapshots a comparing command reads (``diff``, ``fix-report``), in the format-1 shape;
    :class:`~sphinx_kexport.snapshot.SnapshotError` names the file that cannot be read."""
    from ...snapshot import read_snapshot

    return read_snapshot(first)[0], read_snapshot(second)[0]


class CliParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: same format, status 2
        self.print_usage(sys.stderr)
        raise SystemExit(report_failure(message))


@contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM stops the block as Ctrl-C does: a cancelled CI job, ``timeout`` and ``kill`` send it, and
    the survey then stops its workers, keeps its finished records and says how to resume, instead of
    vanishing mid-line. (Workers start from a fresh interpreter, so they keep the default handler.)"""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except (ValueError, AttributeError):  # not the main thread, or no SIGTERM here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
