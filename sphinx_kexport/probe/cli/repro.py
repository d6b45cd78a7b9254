"""``repro SNAPSHOT CASE --path P``: the Python snippet that reproduces one cell of a snapshot."""

from __future__ import annotations

from ...snapshot.vocabulary import DEVICES, PATHS

from .common import EXIT_OK, PROG, CliParser, report_failure


def repro_parser() -> CliParser:
    parser = CliParser(prog=f"{PROG} repro", description=(
        "Print the Python snippet that reproduces one cell of a snapshot (what the page offers for it): it "
        "rebuilds the case's callable and inputs, runs the path and compares with eager."))
    parser.add_argument("snapshot", metavar="SNAPSHOT")
    parser.add_argument("case", metavar="CASE", help="the case's name, as in the snapshot (e.g. 'warp[reflect]')")
    parser.add_argument("--path", required=True, choices=PATHS)
    parser.add_argument("--device", choices=DEVICES, default="cpu")
    return parser


def run_repro(argv: list[str]) -> int:
    args = repro_parser().parse_args(argv)
    from ..base.errors import did_you_mean
    from ...snapshot import PATH_LABELS, SnapshotError, read_snapshot
    from ...snapshot.repro import repro_code
    from ...snapshot.vocabulary import DEFAULT_OPSET

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
    result = case.get("results", {}).get(args.device, {}).get(args.path, {})
    title = f"{args.case}: {PATH_LABELS[args.path]} on {args.device}"
    if result:
        title += f", recorded {result['status']}" + (f" ({result['detail']})" if result.get("detail") else "")
    opset = int(data["environments"][args.device].get("opset") or DEFAULT_OPSET)
    print(repro_code(case["call"], args.path, args.device, opset, " ".join(title.split()),
                     check=bool(case.get("check", True))), end="")
    return EXIT_OK
