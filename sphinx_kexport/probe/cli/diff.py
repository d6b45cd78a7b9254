"""``diff OLD NEW``: what regressed, was fixed or changed between two snapshots; exit 1 on a regression."""

from __future__ import annotations

from ...snapshot.diff import GATE_RULES
from ...snapshot.vocabulary import DEVICES

from .common import EXIT_OK, EXIT_REGRESSED, PROG, CliParser, report_failure


def diff_parser() -> CliParser:
    parser = CliParser(prog=f"{PROG} diff", description=(
        "List per case, device and path what regressed (supported -> mismatch/fail; for torch.compile also ok -> "
        "ok-breaks and more graph breaks; a case whose eager output changed on the same machine and torch: the "
        "rules --allow lets through), what was fixed and what changed between two snapshots. Exit status 1 when "
        "anything regressed."))
    parser.add_argument("old", metavar="OLD")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("--device", action="append", choices=DEVICES, help="compare only this device")
    parser.add_argument("--allow", action="append", choices=GATE_RULES, default=[], metavar="RULE",
                        help="report this change as 'changed', not as a regression (repeatable): "
                             "'fullgraph' (a torch.compile cell goes from ok to ok-breaks: torch.compile(fn, "
                             "fullgraph=True) no longer compiles it), 'breaks' (the default torch.compile breaks "
                             "a supported cell more often than before), 'eager' (the digest of a case's eager "
                             "outputs moved, both measured by the same torch on the same machine). Without it "
                             "each is a regression")
    return parser


def run_diff(argv: list[str]) -> int:
    args = diff_parser().parse_args(argv)
    from ...snapshot import SnapshotError, read_snapshot
    from ...snapshot.diff import KINDS, compare, count, eager_not_compared, not_compared, regressed, renamed
    from ...snapshot.eager_change import unpaired_line

    try:
        old, _ = read_snapshot(args.old)
        new, _ = read_snapshot(args.new)
    except SnapshotError as exc:
        return report_failure(str(exc))
    rules = [rule for rule in GATE_RULES if rule not in args.allow]
    changes = compare(old, new, args.device, rules, vanished=True, eager=True)
    pairs = renamed(old, new)
    if pairs:  # the same object under another of its public names: compared as one case
        print(f"renamed ({len(pairs)}): " + ", ".join(f"{a} -> {b}" for a, b in pairs.items()))
    for kind in KINDS:
        group = [c for c in changes if c.kind == kind]
        if group:
            print(f"{kind} ({len(group)}):")
            for change in group:
                print(f"  {change.describe()}")
    counts = count(changes)
    print(", ".join(f"{counts[k]} {k}" for k in KINDS) if changes else "no differences")
    left_out = not_compared(old, new, args.device)
    if left_out:
        incomplete = [path for path, data in ((args.old, old), (args.new, new)) if data.get("complete") is False]
        which = " and ".join(incomplete)
        verb = "lists" if len(incomplete) == 1 else "list"
        print(f"not compared: {len(left_out)} case(s) that {which} {verb} but did not measure (complete: false, "
              "e.g. a shard part); merge the parts first to compare everything")
    unpaired = unpaired_line(eager_not_compared(old, new, args.device))
    if unpaired:
        print(unpaired)
    return EXIT_REGRESSED if regressed(changes) else EXIT_OK
