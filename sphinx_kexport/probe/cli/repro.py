"""``repro SNAPSHOT CASE --path P``: the Python snippet that reproduces one cell of a snapshot;
``repro --check SNAPSHOT``: every failing cell's snippet run as pasted (:mod:`.repro_check`)."""

from __future__ import annotations

import argparse

from ...snapshot.vocabulary import CPU, DEVICES, PATHS

from .common import EXIT_OK, report_failure

# its line in the list of commands that --help prints
SUMMARY = "the snippet that reproduces one cell of a snapshot; --check runs every failing cell's"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("repro", help=SUMMARY, description=(
        "Print the Python snippet that reproduces one cell of a snapshot (what the page offers for it): it "
        "rebuilds the case's callable and inputs, runs the path and compares with eager. With --check, run the "
        "snippet of every fail, mismatch and timeout cell as pasted, each in a fresh interpreter, and say per "
        "cell whether it reproduced (ended as the cell says, for the cell's own reason), ended otherwise, or "
        "could not run. Exit status with --check: 0 every checked cell reproduced, 1 some did not, 2 a mistake "
        "on the command line or in the snapshot, 130 interrupted."))
    parser.add_argument("snapshot", metavar="SNAPSHOT")
    parser.add_argument("case", metavar="CASE", nargs="?",
                        help="the case's name, as in the snapshot (e.g. 'warp[reflect]'); not with --check")
    parser.add_argument("--path", choices=PATHS,
                        help="the cell's path (required without --check; with it, check only that path)")
    parser.add_argument("--device", choices=DEVICES, default=CPU,
                        help="the device whose results the snippet reproduces (default cpu)")
    check = parser.add_argument_group("--check")
    check.add_argument("--check", action="store_true",
                       help="run every failing cell's snippet in its own fresh interpreter and report per cell")
    check.add_argument("--only", action="append", metavar="PATTERN",
                       help="check only cases whose name equals or starts with PATTERN, or whose package is "
                            "PATTERN (repeatable; * and ? are wildcards)")
    check.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="snippets run at the same time (default 1)")
    check.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                       help="the time limit of one snippet; a timeout cell reproduces when its snippet is still "
                            "running then (default 300; the cell's own recorded limit when that is lower)")
    check.add_argument("--python", metavar="EXE",
                       help="the interpreter the snippets run in (default: this one); it needs the library and "
                            "the torch of the snapshot")
    check.add_argument("--sample", type=int, metavar="N",
                       help="check N failing cells drawn at random (a fixed draw for a given N and snapshot)")
    check.add_argument("--write", metavar="FILE",
                       help="also write the per-cell results as JSON to FILE: the page's :repro-check: option "
                            "reads it")
    parser.set_defaults(run=run_repro)


def run_repro(args: argparse.Namespace) -> int:
    if args.check:
        if args.case:
            return report_failure(f"--check runs every failing cell; name cases with --only, not {args.case!r}")
        from .repro_check import run_check

        return run_check(args)
    if not args.case or not args.path:
        return report_failure("name the CASE and its --path (or check every failing cell with --check)")
    if args.only or args.sample or args.write or args.python:
        return report_failure("--only, --sample, --write and --python go with --check")
    from ..base.errors import did_you_mean
    from ...snapshot import SnapshotError, read_snapshot

    try:
        data, _ = read_snapshot(args.snapshot)
    except SnapshotError as exc:
        return report_failure(str(exc))
    cases = {c["name"]: c for c in data["cases"]}
    if args.case not in cases:
        return report_failure(f"{args.snapshot} has no case {args.case!r} ({len(cases)} cases)."
                              f"{did_you_mean(args.case, cases)}")
    case = cases[args.case]
    if args.device not in data["environments"]:
        return report_failure(f"{args.snapshot} holds no {args.device} results (devices: "
                     f"{', '.join(data['environments']) or 'none'}); choose one with --device")
    if not case.get("call"):
        return report_failure(f"case {args.case!r} in {args.snapshot} records no call to rebuild it from (a skip= case, a "
                     "target without an importable path, or a snapshot in Kornia's format)")
    from ...snapshot.repro import cell_repro

    print(cell_repro(data, case, args.path, args.device), end="")
    return EXIT_OK

