"""``merge OUT PART...``: combine shard outputs (and per-device runs) into one snapshot."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, EXIT_REGRESSED, report_failure

# its line in the list of commands that --help prints
SUMMARY = "combine shard outputs (and per-device runs) into one snapshot"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("merge", help=SUMMARY, description=(
        "Combine shard outputs (and per-device runs) into one snapshot. The parts must share the case "
        "inventory, library and tool versions; a case no part measured is refused unless --allow-incomplete."))
    parser.add_argument("out", metavar="OUT")
    parser.add_argument("parts", nargs="+", metavar="PART")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="write the snapshot anyway, marked complete: false with the missing case names (the page "
                             "shows a warning)")
    parser.set_defaults(run=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    from ..survey.merge import MergeError, MergeGap, merge_command

    try:
        result = merge_command(Path(args.out), [Path(p) for p in args.parts], args.allow_incomplete)
    except MergeGap as exc:
        return report_failure(f"{exc} Nothing was written.", EXIT_REGRESSED)
    except MergeError as exc:
        return report_failure(f"{exc} Nothing was written.")
    for note in result.notes:
        print(f"note: {note}")
    state = "complete" if not result.missing else f"incomplete: {len(result.missing)} cases missing"
    print(f"wrote {args.out} ({len(result.snapshot['cases'])} cases from {len(args.parts)} parts, {state})")
    return EXIT_OK
