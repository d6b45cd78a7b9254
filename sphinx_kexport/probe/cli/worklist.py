"""``worklist SNAPSHOT...``: the library lines ranked by the operators and cells they block, per path, with
the fix class; several snapshots (one per torch version): each version's ranking, newest first."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, PROG, report_failure

# its line in the list of commands that --help prints
SUMMARY = "the library lines to fix first, ranked by the operators and cells they block"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("worklist", help=SUMMARY, description=(
        "Rank the library lines (a red cell's `where`) by the distinct operators, then the cells, they block, "
        "per path, with the class of the failure and its fix: where to fix first. A red cell fails, breaks "
        "torch.compile's graph, or holds only at the traced batch size. Given one snapshot per torch version, "
        "each version is ranked, newest first, and an older version's lines say whether they still block in the "
        "newest. Needs no torch."))
    parser.add_argument("snapshots", nargs="+", metavar="SNAPSHOT")
    parser.add_argument("--format", choices=("md", "csv"), default="md",
                        help="a markdown table per torch version (default), or CSV rows")
    parser.add_argument("--top", type=int, default=None, metavar="N", help="only the first N lines of each version")
    parser.set_defaults(run=run_worklist)


def run_worklist(args: argparse.Namespace) -> int:
    if args.top is not None and args.top < 1:
        return report_failure(f"--top must be 1 or more, found {args.top}")
    from ...snapshot import SnapshotError, build, read_snapshot
    from ...snapshot.torch_versions import torch_version, version_key
    from ...snapshot.worklist import csv_text, markdown, rank_versions

    loaded = []
    try:
        for path in dict.fromkeys(args.snapshots):
            data, _ = read_snapshot(path)
            snapshot = build(data, path)
            torch = torch_version(snapshot, path) if len(args.snapshots) > 1 else _torch_or_blank(snapshot)
            for other_torch, other in loaded:
                if other_torch == torch:
                    raise SnapshotError(f"{path}: torch {torch}, the same as {other.source}: expected one "
                                        "snapshot per torch version (merge the shards of one survey first with "
                                        f"`{PROG} merge`).")
            loaded.append((torch, snapshot))
    except SnapshotError as exc:
        return report_failure(str(exc))
    loaded.sort(key=lambda pair: version_key(pair[0]) if pair[0] else (), reverse=True)
    rankings = rank_versions(loaded)
    print(markdown(rankings, args.top) if args.format == "md" else csv_text(rankings, args.top), end="")
    return EXIT_OK


def _torch_or_blank(snapshot) -> str:
    """One snapshot needs no torch version; its title shows the one it has, if any."""
    from ...snapshot import SnapshotError
    from ...snapshot.torch_versions import torch_version

    try:
        return torch_version(snapshot, snapshot.source)
    except SnapshotError:
        return ""
