"""``diff OLD NEW``: what regressed, was fixed or changed between two snapshots; exit 1 on a regression."""

from __future__ import annotations

import argparse

from ...snapshot.diff import GATE_RULES
from ...snapshot.diff_formats import FORMATS
from ...snapshot.vocabulary import DEVICES

from .common import EXIT_OK, EXIT_REGRESSED, read_two, report_failure

# its line in the list of commands that --help prints
SUMMARY = "what regressed, was fixed or changed between two snapshots; exit 1 on a regression"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("diff", help=SUMMARY, description=(
        "List per case, device and path what regressed (supported -> mismatch/fail; for torch.compile also ok -> "
        "ok-breaks and more graph breaks; a case whose eager output changed on the same machine and torch: the "
        "rules --allow lets through), what was fixed and what changed between two snapshots, each with its cause "
        "where the snapshots hold it (the code the case ran that changed, the failure's library line). Exit "
        "status 1 when anything regressed, in every format."))
    parser.add_argument("old", metavar="OLD")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("--device", action="append", choices=DEVICES, help="compare only this device")
    parser.add_argument("--allow", action="append", choices=GATE_RULES, default=[], metavar="RULE",
                        help="report this change as 'changed', not as a regression (repeatable): "
                             "'fullgraph' (a torch.compile cell goes from ok to ok-breaks: torch.compile(fn, "
                             "fullgraph=True) no longer compiles it), 'breaks' (the default torch.compile breaks "
                             "a supported cell more often than before), 'dynamic' (a supported cell whose result "
                             "held at any batch size has no dynamic-batch result any more), 'eager' (the digest of "
                             "a case's eager outputs moved, both measured by the same torch on the same machine). "
                             "Without it each is a regression")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text (default): a line per change; md: Markdown tables for a pull-request comment "
                             "or $GITHUB_STEP_SUMMARY; json: one object for scripts (shape in the CLI reference)")
    parser.set_defaults(run=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    from ...snapshot import SnapshotError
    from ...snapshot.diff import compare, eager_not_compared, not_compared, regressed, renamed
    from ...snapshot.diff_formats import DiffReport, render

    try:
        old, new = read_two(args.old, args.new)
    except SnapshotError as exc:
        return report_failure(str(exc))
    rules = [rule for rule in GATE_RULES if rule not in args.allow]
    changes = compare(old, new, args.device, rules, vanished=True, eager=True)
    report = DiffReport(
        args.old, args.new, tuple(changes), tuple(renamed(old, new).items()),
        tuple(sorted(not_compared(old, new, args.device))),
        tuple(path for path, data in ((args.old, old), (args.new, new)) if data.get("complete") is False),
        tuple(rule for rule in GATE_RULES if rule in args.allow), EXIT_REGRESSED if regressed(changes) else EXIT_OK,
        tuple(eager_not_compared(old, new, args.device)))
    print(render(report, args.format), end="")
    return report.exit_status
