"""Where the test suite's CPU time goes, per test module and per test.

    KEXPORT_TEST_CPU=/tmp/cpu.jsonl .venv/bin/python -m pytest -q
    python benchmarks/suite_cpu.py /tmp/cpu.jsonl [--top 25]

tests/conftest.py writes one line per test (its setup, call and teardown together): the CPU seconds of the
xdist worker and of the child processes it waited for (the probe's runs), and the wall seconds. The suite is
CPU-bound on two cores, so the CPU column is what a cut must shrink; a module-scoped fixture's cost lands on
the module's first test.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path, help="the file KEXPORT_TEST_CPU named")
    parser.add_argument("--top", type=int, default=25, help="how many modules and tests to list (25)")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.record.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        raise SystemExit(f"{args.record}: no tests recorded; run pytest with KEXPORT_TEST_CPU={args.record}")
    per_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        entry = per_module[row["test"].split("::")[0]]
        entry[0] += row["cpu_self"] + row["cpu_children"]
        entry[1] += row["wall"]
        entry[2] += 1
    total = sum(cpu for cpu, _, _ in per_module.values())
    print(f"{len(rows)} tests, {total:.0f} CPU seconds in all ({total / 2:.0f} s on two busy cores)\n")
    print(f"{'CPU s':>8} {'share':>6} {'wall s':>8} {'tests':>5}  module")
    for module, (cpu, wall, count) in sorted(per_module.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"{cpu:8.1f} {cpu / total:6.1%} {wall:8.1f} {count:5d}  {module}")
    print(f"\n{'CPU s':>8} {'wall s':>8}  test")
    for row in sorted(rows, key=lambda r: -(r["cpu_self"] + r["cpu_children"]))[:args.top]:
        print(f"{row['cpu_self'] + row['cpu_children']:8.1f} {row['wall']:8.1f}  {row['test']}")


if __name__ == "__main__":
    main()
