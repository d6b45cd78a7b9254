"""``python -m sphinx_kexport.probe [COMMAND]`` (or ``sphinx-kexport-probe``): one argparse parser whose options
are the refresh's (:mod:`.probe`) and whose subparsers are the other commands, one module each.

Each command's module adds its own subparser (``add_command``) and sets ``run`` to its runner, which takes the
parsed arguments. No command refreshes the snapshot, so ``python -m sphinx_kexport.probe --out PATH`` is the
survey. Building the parser imports no torch: each runner imports what it needs when it runs, so ``--help``
answers at once.
"""

from __future__ import annotations

import argparse
import sys

from . import diff, discover, fix_report, merge, repro, worklist
from .common import EXIT_USAGE, report_failure
from .probe import probe_parser, run_probe

COMMAND_MODULES = (merge, diff, fix_report, worklist, repro, discover)  # in the order --help lists them


def command_line() -> argparse.ArgumentParser:
    """The whole command line: the refresh's options, then one subparser per command."""
    parser = probe_parser()
    parser.set_defaults(run=run_probe)
    commands = parser.add_subparsers(
        title="commands", dest="command", metavar="COMMAND",
        description="Without a COMMAND the probe refreshes the snapshot (the options above). Each command "
                    "has its own --help.")
    for module in COMMAND_MODULES:
        module.add_command(commands)
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, the refresh first (under ""): what ``--help`` prints and what the docs' CLI
    reference is generated from."""
    parser = command_line()
    return {"": parser, **_subparsers(parser)}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = command_line()
    try:
        args = parser.parse_args(argv)
        if args.command and argv[0] != args.command:
            # argparse would let the command's defaults replace the refresh options given before its name
            before = " ".join(argv[:argv.index(args.command)])
            return report_failure(f"{before}: the options before {args.command!r} are the refresh's; give "
                                  f"{args.command}'s options after its name (`{parser.prog} {args.command} --help` "
                                  "lists them)")
        return int(args.run(args))
    except SystemExit as exc:  # --help, or a mistake argparse reported (CliParser.error)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE


def entry_point() -> None:
    """The ``sphinx-kexport-probe`` console script."""
    sys.exit(main())
