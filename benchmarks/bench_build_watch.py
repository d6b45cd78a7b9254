"""Benchmark: what watching the building of hand-written cases costs the inventory, and what it records.

    PYTHONPATH=. KORNIA_SOURCE=KORNIA python benchmarks/bench_build_watch.py \\
        [--cases example_docs/cases] [--library kornia] [--repeats 5]

Each case module is imported in a fresh child process, as the inventory's children import it, once with the
build watch (``measure/build_watch.py``) and once without, alternating (with first in even rounds, without
first in odd ones); a module that takes its cases from docstrings or tests reads them from the discovery
cache, so run the survey once first to fill it. The child reports the seconds of importing and describing
the module; the table gives each module's median with and without, their ratio, and how many hand-written
cases got a build code set and the median number of refs in one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_survey_memory import machine

REPO = Path(__file__).resolve().parents[1]


def one_module(module: str, path_entry: str, label: str, library: str, watch: bool) -> None:
    """Inside a child: describe one case module, watched or not; print the seconds and the build code sets."""
    sys.path.insert(0, path_entry)
    import torch  # noqa: F401  (the inventory's children fork from a server that imported it)

    from sphinx_kexport.probe.base.code_digest import CodePlaces
    from sphinx_kexport.probe.cases.describe import describe_module
    from sphinx_kexport.probe.cases.inventory import Source
    from sphinx_kexport.probe.measure.locate import library_root
    from sphinx_kexport.probe.measure.build_watch import BuildWatch

    source = Source(module, path_entry, label, True)
    began = time.perf_counter()
    if watch:
        places = CodePlaces(library, library_root(library).directory, str(REPO))
        with BuildWatch(places, [places.library_dir, path_entry]) as builds:
            cases = describe_module(source)
        sets = [len(builds.code_of(c.local_name)) for c in cases if not c.discovered and not c.skip]
    else:
        cases, sets = describe_module(source), []
    print(json.dumps({"seconds": time.perf_counter() - began, "cases": len(cases), "sets": sets}))


def child(module: str, path_entry: str, label: str, library: str, watch: bool) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--one", module, path_entry, label, library,
               "on" if watch else "off"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="example_docs/cases")
    parser.add_argument("--library", default="kornia")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--one", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        module, path_entry, label, library, watch = args.one
        one_module(module, path_entry, label, library, watch == "on")
        return
    from sphinx_kexport.probe.cases.loader import resolve_sources

    sources = resolve_sources([args.cases], REPO)
    print(f"# {machine()}; load average at start {os.getloadavg()[0]:.2f}")
    print("| module | without (s) | with (s) | with / without | cases | build sets | refs per set (median) |")
    print("|---|---|---|---|---|---|---|")
    total = {True: 0.0, False: 0.0}
    for source in sources:
        seconds: dict[bool, list[float]] = {True: [], False: []}
        sets: list[int] = []
        cases = 0
        for round_ in range(args.repeats):
            for watch in ((True, False) if round_ % 2 == 0 else (False, True)):
                found = child(source.module, source.path_entry, source.label, args.library, watch)
                seconds[watch].append(found["seconds"])
                sets = found["sets"] if watch else sets
                cases = found["cases"]
        with_, without = statistics.median(seconds[True]), statistics.median(seconds[False])
        total[True] += with_
        total[False] += without
        print(f"| {source.label} | {without:.2f} | {with_:.2f} | {with_ / without:.2f} | {cases} | {len(sets)} | "
              f"{statistics.median(sets) if sets else 0:g} |")
    print(f"| all | {total[False]:.2f} | {total[True]:.2f} | {total[True] / total[False]:.2f} | | | |")


if __name__ == "__main__":
    main()
