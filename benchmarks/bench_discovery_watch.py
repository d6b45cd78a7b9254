"""Benchmark: what following the code each test file runs (the code watch) costs test discovery.

    PYTHONPATH=. python benchmarks/bench_discovery_watch.py PACKAGE TESTS [TESTS ...] \\
        [--jobs 1] [--time-limit SECONDS] [--repeats 1]

Each TESTS (a test file or folder) is discovered with ``python -m sphinx_kexport.probe discover PACKAGE
--tests TESTS --no-cases`` and an empty discovery cache of its own, with the watch on and off, alternating
(on first in even rounds, off first in odd ones). Off: a ``coverage.py`` that raises ``ImportError`` is first
on ``PYTHONPATH``, which the probe takes as "no coverage.py, no watch" (a change to the library then runs
every test file again). Each run is timed from outside: wall, and the user and system CPU of the command and
every process under it (``process_tree.py``: orphaned descendants included). The table gives medians over the repeats
and the on / off
ratio of user CPU; each run's summary line (cases and skips) must be the same both ways, or the script says
so. Compare user CPU where the machine is busy: wall is only fair on an idle one.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from discover_runs import discover_counted  # noqa: E402  every process of the run, orphans included


def discover(package: str, tests: str, extra: list[str], watch: bool, scratch: Path) -> dict:
    """One discovery with a fresh cache: its wall, CPU and summary line."""
    done, wall, user, system = discover_counted(package, tests, extra, scratch, f" ({'on' if watch else 'off'})",
                                                () if watch else (str(scratch / "no-coverage"),))
    summary = next((line for line in done.stdout.splitlines() if line.startswith(f"{package} from ")), "")
    return {"wall": wall, "user": user, "sys": system,
            "summary": summary.rsplit(";", 1)[0]}  # without its own seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package")
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    extra = ["--jobs", str(args.jobs)] + (["--time-limit", f"{args.time_limit:g}"] if args.time_limit else [])
    print(f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}; "
          f"discover {args.package} --tests T {' '.join(extra)} --no-cases; medians of {args.repeats}")
    print(f"{'tests':<44} {'wall on/off':>15} {'user CPU on/off':>17} {'sys on/off':>13} {'user on/off':>11}")
    with tempfile.TemporaryDirectory(prefix="bench-discovery-watch-") as folder:
        scratch = Path(folder)
        (scratch / "no-coverage").mkdir()
        (scratch / "no-coverage" / "coverage.py").write_text('raise ImportError("the watch is off")\n')
        for tests in args.tests:
            runs: dict[bool, list[dict]] = {True: [], False: []}
            for round_ in range(args.repeats):
                for watch in ((True, False) if round_ % 2 == 0 else (False, True)):
                    runs[watch].append(discover(args.package, tests, extra, watch, scratch))
            if {r["summary"] for r in runs[True]} != {r["summary"] for r in runs[False]}:
                print(f"  {tests}: the watch changed what discovery found:", runs[True][0]["summary"],
                      runs[False][0]["summary"], sep="\n    ")
            on, off = ({key: statistics.median(r[key] for r in runs[watch]) for key in ("wall", "user", "sys")}
                       for watch in (True, False))
            print(f"{Path(tests).name:<44} {on['wall']:>7.1f}/{off['wall']:<7.1f} {on['user']:>8.1f}/{off['user']:<8.1f}"
                  f" {on['sys']:>6.1f}/{off['sys']:<6.1f} {on['user'] / off['user']:>11.2f}")


if __name__ == "__main__":
    main()
