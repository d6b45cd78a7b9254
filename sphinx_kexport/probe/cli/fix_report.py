"""``fix-report BEFORE AFTER``: what a compile fix did (cells fixed, graph breaks removed, eager output kept,
speed before and after); exit 0 for a fix that regressed nothing and kept eager output, 1 otherwise."""

from __future__ import annotations

import argparse

from ...snapshot.vocabulary import DEVICES

from .common import EXIT_OK, EXIT_REGRESSED, read_two, report_failure

FORMATS = ("text", "md", "json")

# its line in the list of commands that --help prints
SUMMARY = "what a compile fix did, from the snapshots before and after it"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("fix-report", help=SUMMARY, description=(
        "What a compile fix did, from the snapshots measured before and after it: the cells fixed (failing -> "
        "supported; for torch.compile also ok-breaks -> ok) and any that regressed, the default torch.compile's "
        "graph breaks per case before and after, whether each case's eager output kept its digest, and the speed "
        "figures before and after with their spreads. Exit status 0 when a cell was fixed or a graph break "
        "removed and nothing regressed and no comparable eager output changed; 1 otherwise; 2 for unreadable "
        "input. Needs no torch."))
    parser.add_argument("before", metavar="BEFORE", help="the snapshot measured before the fix")
    parser.add_argument("after", metavar="AFTER", help="the snapshot measured after it")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text for a terminal (default), md: Markdown tables for a pull request's description "
                             "or a job summary, json: the records for a script")
    parser.add_argument("--case", action="append", metavar="NAME",
                        help="report only this case (repeatable); its speed figures are shown even if the fix did "
                             "not touch it")
    parser.add_argument("--device", action="append", choices=DEVICES, help="report only this device (repeatable)")
    parser.set_defaults(run=run_fix_report)


def run_fix_report(args: argparse.Namespace) -> int:
    import json

    from ...snapshot import SnapshotError
    from ...snapshot.fix_report import fix_report, unknown_cases
    from ...snapshot.fix_report_words import as_json, markdown, text

    try:
        before, after = read_two(args.before, args.after)
    except SnapshotError as exc:
        return report_failure(str(exc))
    unknown = unknown_cases(before, after, args.case or ())
    if unknown:
        return report_failure(f"--case {', '.join(unknown)}: no such case in {args.before} or {args.after}; "
                              "give a case's name as the snapshot lists it (the page's Case column)")
    report = fix_report(before, after, args.device, args.case)
    if args.format == "json":
        print(json.dumps(as_json(report, args.before, args.after), indent=2, ensure_ascii=False))
    else:
        print((markdown if args.format == "md" else text)(report, args.before, args.after), end="")
    return EXIT_OK if report.passed else EXIT_REGRESSED
