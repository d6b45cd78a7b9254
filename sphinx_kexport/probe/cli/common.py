"""What every subcommand shares: the program's name, the exit statuses and how an error is printed."""

from __future__ import annotations

import argparse
import sys

PROG = "python -m sphinx_kexport.probe"
EXIT_OK, EXIT_REGRESSED, EXIT_USAGE, EXIT_TOOL, EXIT_EAGER, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_STATUS_HELP = (
    "Exit status: 0 the survey ran (failing cases are data); 2 a mistake in the configuration, the case "
    "modules or the command line; 3 the probe itself could not run (or could not build some case in a worker: "
    "listed at the end, no status recorded for it); 4 the survey ran and wrote the snapshot, "
    "but some cases failed eagerly (a problem with the case or the environment; listed at the end); "
    "130 interrupted.")


def report_failure(message: str, code: int = EXIT_USAGE) -> int:
    print(f"sphinx-kexport probe: error: {message}", file=sys.stderr)
    return code


class CliParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: same format, status 2
        self.print_usage(sys.stderr)
        raise SystemExit(report_failure(message))
