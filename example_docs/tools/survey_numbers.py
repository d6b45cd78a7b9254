"""The figures of the showcase's "survey in numbers", read from a snapshot the probe wrote.

Every count the table gives (configurations by origin, those without a tensor input, per path supported,
checked, failing and timed out, all three paths, any batch size) and, for a ``--speed`` snapshot, the
speed marks of the working cells, so that the table is reproduced by one command rather than by hand::

    python example_docs/tools/survey_numbers.py [SNAPSHOT] [--device cpu] [--json]

Only the standard library and ``sphinx_kexport.snapshot`` (the docs build never imports torch; neither
does this).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the checkout's sphinx_kexport, run from anywhere

from sphinx_kexport.snapshot.errors import SnapshotError  # noqa: E402
from sphinx_kexport.snapshot.files import read_snapshot  # noqa: E402
from sphinx_kexport.snapshot.vocabulary import (DYNAMIC_OK, OK_BREAKS, OK_UNVERIFIED, PATH_LABELS,  # noqa: E402
                                                PATHS, SPEED_AT_INPUTS, STATUS, UNCOUNTED)

DEFAULT = HERE.parent / "_data" / "export_support.json"


def _figure_of(speed: dict[str, Any]) -> dict[str, Any] | None:
    """The figure a cell shows: the larger size's where it was timed, else the case's own inputs'."""
    figures = speed.get("figures") or []
    larger = [f for f in figures if f.get("size") != SPEED_AT_INPUTS]
    return (larger or figures or [None])[0]


def numbers(snapshot: dict[str, Any], device: str) -> dict[str, Any]:
    cases = snapshot["cases"]
    results = [case.get("results", {}).get(device, {}) for case in cases]
    probed = [r for r in results if r and not all(r[p]["status"] in UNCOUNTED for p in PATHS if p in r)]
    out: dict[str, Any] = {
        "configurations": len(cases),
        "probed": len(probed),
        "not probed (n/a on every path, or no result)": len(cases) - len(probed),
        "by origin": dict(Counter(case.get("origin", "?") for case in cases).most_common()),
        "no tensor input": sum(1 for case in cases if not case.get("inputs")),
        "operators (distinct refs)": len({case.get("ref") for case in cases}),
        "complete": snapshot.get("complete", True),
    }
    for path in PATHS:
        statuses = Counter(r[path]["status"] for r in results if path in r)
        supported = sum(n for status, n in statuses.items() if STATUS[status].supported)
        out[PATH_LABELS[path]] = {
            "supported": supported,
            "of which random or unverifiable": statuses[OK_UNVERIFIED],
            "of which with graph breaks": statuses[OK_BREAKS],
            **{status: n for status, n in sorted(statuses.items()) if not STATUS[status].supported},
            "any batch size": sum(1 for r in results if path in r and STATUS[r[path]["status"]].supported
                                  and (r[path].get("dynamic") or {}).get("status") == DYNAMIC_OK),
        }
    out["supported on all three paths"] = sum(
        1 for r in results if all(path in r and STATUS[r[path]["status"]].supported for path in PATHS))
    out["any batch size on all three paths"] = sum(
        1 for r in results if all(path in r and (r[path].get("dynamic") or {}).get("status") == DYNAMIC_OK
                                  for path in PATHS))
    speed = {}
    for path in PATHS:
        marks: Counter = Counter()
        for r in results:
            if path not in r or not STATUS[r[path]["status"]].supported:
                continue
            figure = _figure_of(r[path].get("speed") or {})
            marks[figure["verdict"] if figure else "no figure"] += 1
        if sum(n for mark, n in marks.items() if mark != "no figure"):
            speed[PATH_LABELS[path]] = dict(marks.most_common())
    if speed:
        out["speed marks of working cells (the larger size where timed)"] = speed
    return out


def _print(value: Any, indent: int = 0) -> None:
    for key, item in value.items():
        if isinstance(item, dict):
            print(" " * indent + f"{key}:")
            _print(item, indent + 2)
        else:
            print(" " * indent + f"{key}: {item:,}" if isinstance(item, int) and not isinstance(item, bool)
                  else " " * indent + f"{key}: {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", nargs="?", default=str(DEFAULT), help="snapshot (default: the example's)")
    parser.add_argument("--device", default="cpu", help="device whose results are counted (default: cpu)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not Path(args.snapshot).is_file():
        print(f"survey_numbers.py: {args.snapshot}: no such file; give a snapshot the probe wrote", file=sys.stderr)
        return 2
    try:
        snapshot, _ = read_snapshot(args.snapshot)
    except SnapshotError as exc:  # a missing or invalid file: its message says which and what to do
        print(f"survey_numbers.py: {exc}", file=sys.stderr)
        return 2
    found = numbers(snapshot, args.device)
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        _print(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
