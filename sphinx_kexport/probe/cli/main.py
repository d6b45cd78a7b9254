"""``python -m sphinx_kexport.probe [SUBCOMMAND]`` (or ``sphinx-kexport-probe``): one module per subcommand,
dispatched here.

No subcommand refreshes the snapshot (:mod:`.probe`); ``merge``, ``diff``, ``fix-report``, ``worklist``, ``repro``
and ``discover`` are the others. Each module imports what it needs when it runs, so ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_USAGE

SUBCOMMANDS = ("merge", "diff", "fix-report", "worklist", "repro", "discover")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "merge":
            from .merge import run_merge

            return run_merge(argv[1:])
        if argv and argv[0] == "diff":
            from .diff import run_diff

            return run_diff(argv[1:])
        if argv and argv[0] == "fix-report":
            from .fix_report import run_fix_report

            return run_fix_report(argv[1:])
        if argv and argv[0] == "worklist":
            from .worklist import run_worklist

            return run_worklist(argv[1:])
        if argv and argv[0] == "repro":
            from .repro import run_repro

            return run_repro(argv[1:])
        if argv and argv[0] == "discover":
            from .discover import run_discover

            return run_discover(argv[1:])
        from .probe import probe_parser, run_probe

        return run_probe(probe_parser().parse_args(argv))
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, the refresh first (under ""): what ``--help`` prints and what the docs' CLI
    reference is generated from. Building them imports no torch."""
    from .diff import diff_parser
    from .discover import discover_parser
    from .fix_report import fix_report_parser
    from .merge import merge_parser
    from .probe import probe_parser
    from .repro import repro_parser
    from .worklist import worklist_parser

    made = {"merge": merge_parser, "diff": diff_parser, "fix-report": fix_report_parser, "worklist": worklist_parser,
            "repro": repro_parser, "discover": discover_parser}
    return {"": probe_parser(), **{name: made[name]() for name in SUBCOMMANDS}}


def entry_point() -> None:
    """The ``sphinx-kexport-probe`` console script."""
    sys.exit(main())
