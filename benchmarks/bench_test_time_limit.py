"""Benchmark: what test discovery's time limit for a test buys, and what it loses, side by side.

    PYTHONPATH=. python benchmarks/bench_test_time_limit.py PACKAGE TESTS [--limits 10 60] \\
        [--jobs 2] [--repeats 1]

``python -m sphinx_kexport.probe discover PACKAGE --tests TESTS --no-cases --time-limit L`` for each limit, each run
with an empty discovery cache of its own, the limits in turn (reversed in odd rounds, so that a machine
warming up or slowing down hits each). Each run is timed from outside: wall, and the user and system CPU
of the command and every process under it (``process_tree.py``: orphaned descendants included). The
table gives medians over the repeats, the cases found, the tests that ran past the limit and the memory
the command reports for its largest test; then it says whether every limit found the same cases (names,
operators and input shapes), and lists the cases that only some limits found. The first limit is the
reference of the ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from discover_runs import discover_counted  # noqa: E402  every process of the run, orphans included

CASE_LINE = re.compile(r"^    \S.*?: (\S.* -> \S+ \[.*)$")  # "    TestA::test_x[...]: name[test 2] -> ref [(2,3)]"
MEMORY = re.compile(r"^most memory: .*\(([\d.]+ [KMG]B) at the peak")


def discover(package: str, tests: str, limit: float, jobs: int, scratch: Path) -> dict:
    """One discovery at ``limit`` with an empty cache: its wall, CPU, cases and what ran past the limit."""
    done, wall, user, system = discover_counted(package, tests, ["--jobs", str(jobs), "--time-limit", f"{limit:g}"],
                                                scratch)
    lines = done.stdout.splitlines()
    cases = sorted(m.group(1) for m in map(CASE_LINE.match, lines) if m)
    memory = next((m.group(1) for m in map(MEMORY.match, lines) if m), "?")
    return {"wall": wall, "user": user, "sys": system, "cases": cases, "memory": memory,
            "past": sum(line.startswith("    ") and "no case: it ran past its time limit" in line for line in lines)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package")
    parser.add_argument("tests")
    parser.add_argument("--limits", type=float, nargs="+", default=[10.0, 60.0],
                        help="the limits to compare, seconds (the first is the reference; default: 10 60)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}; "
          f"discover {args.package} --tests {args.tests} --no-cases --jobs {args.jobs} --time-limit L; "
          f"medians of {args.repeats}")
    runs: dict[float, list[dict]] = {limit: [] for limit in args.limits}
    with tempfile.TemporaryDirectory(prefix="bench-test-time-limit-") as folder:
        for round_ in range(args.repeats):
            for limit in (args.limits if round_ % 2 == 0 else args.limits[::-1]):
                runs[limit].append(discover(args.package, args.tests, limit, args.jobs, Path(folder)))
    reference = args.limits[0]
    medians = {limit: {key: statistics.median(r[key] for r in runs[limit]) for key in ("wall", "user", "sys")}
               for limit in args.limits}
    print(f"{'limit':>7} {'wall':>8} {'user CPU':>9} {'sys CPU':>8} {'wall / ref':>10} {'cases':>6} "
          f"{'past the limit':>15} {'largest test':>13}")
    for limit in args.limits:
        m, last = medians[limit], runs[limit][-1]
        print(f"{limit:>6g}s {m['wall']:>7.1f}s {m['user']:>8.1f}s {m['sys']:>7.1f}s "
              f"{m['wall'] / medians[reference]['wall']:>10.2f} {len(last['cases']):>6} {last['past']:>15} "
              f"{last['memory']:>13}")
    found = {limit: {tuple(r["cases"]) for r in runs[limit]} for limit in args.limits}
    unstable = [limit for limit in args.limits if len(found[limit]) > 1]
    if unstable:
        print("the repeats at " + ", ".join(f"{limit:g} s" for limit in unstable) + " found different cases")
    every = [set(runs[limit][-1]["cases"]) for limit in args.limits]
    common = set.intersection(*every)
    if all(cases == common for cases in every):
        print(f"every limit found the same {len(common)} cases (names, operators, input shapes)")
    for limit, cases in zip(args.limits, every):
        for line in sorted(cases - common):
            print(f"  only at {limit:g} s: {line}")


if __name__ == "__main__":
    main()
