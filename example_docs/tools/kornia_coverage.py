"""How many of the objects Kornia's own export-support page probes does our survey probe?

Kornia's page names an operator by a public dotted name; several names can be
aliases of one object (``kornia.filters.gaussian_blur2d`` and
``kornia.filters.blur.gaussian_blur2d``). Both lists are therefore compared by
the object each name resolves to in the installed kornia::

    python example_docs/tools/kornia_coverage.py [--missing] [--from-cases]

Reads ``_data/kornia-published-operators.tsv`` (the names Kornia's page probes,
taken from its published data file) and our committed snapshot. It imports
kornia, so it needs torch and kornia; it probes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
DATA = DOCS / "_data"
sys.path.insert(0, str(DOCS / "cases"))
from _inputs import identity, resolve  # noqa: E402  (the case modules' own resolver: one meaning of "same object")


def published_names(path: Path) -> list[str]:
    rows = (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line and line[0] != "#")
    return [row[0] for row in rows]


def probed_refs(snapshot: Path) -> list[str]:
    """The ``ref`` of every case the snapshot measured (skip entries have no results)."""
    cases = json.loads(snapshot.read_text(encoding="utf-8"))["cases"]
    return [case["ref"] for case in cases if case.get("ref") and case.get("results")]


def inventory_refs() -> list[str]:
    """The ``ref`` of every case the example's case modules register and the probe would measure, loaded the
    way the probe loads them (discovery runs, or comes from its cache)."""
    from survey_counts import configured_inventory  # beside this script; it puts sphinx_kexport on the path

    cases, _ = configured_inventory(DOCS.parent / "pyproject.toml")
    return [case.ref for case in cases if case.ref and not case.skip]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DATA / "export_support.json")
    parser.add_argument("--published", type=Path, default=DATA / "kornia-published-operators.tsv")
    parser.add_argument("--missing", action="store_true", help="list the published objects we do not probe")
    parser.add_argument("--from-cases", action="store_true",
                        help="count what the case modules register instead of the snapshot (before a refresh)")
    args = parser.parse_args(argv)

    theirs: dict[int, str] = {}
    unresolved = 0
    for name in published_names(args.published):
        obj = resolve(name)
        if obj is None:
            unresolved += 1
        else:
            theirs.setdefault(identity(obj), name)
    refs = inventory_refs() if args.from_cases else probed_refs(args.snapshot)
    ours = {identity(obj) for obj in map(resolve, set(refs)) if obj is not None}
    covered = theirs.keys() & ours
    print(f"Kornia's page: {len(theirs)} objects ({unresolved} names do not resolve in this kornia)")
    print(f"our survey: {len(refs)} configurations, {len(set(refs))} operators, {len(ours)} objects")
    print(f"Kornia's objects we probe: {len(covered)} of {len(theirs)} ({100 * len(covered) / len(theirs):.1f} %)")
    missing = sorted(theirs[key] for key in theirs.keys() - ours)
    by_package = Counter(".".join(name.split(".")[:2]) for name in missing)
    print("missing, per package: " + ", ".join(f"{package} {count}" for package, count in by_package.most_common()))
    if args.missing:
        print("\n".join(missing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
