"""Benchmark: what the torch.compile path costs per case, old probe against new, side by side.

    PYTHONPATH=. python benchmarks/bench_compile_count.py --old /tmp/old-tree \\
        --cases tests/probe/probe_cases/graph_break_cases.py --cases tests/probe/probe_cases/basic_cases.py \\
        [--library kornia] [--only NAME ...] [--every K] [--repeats 2] [--speed] [--no-dynamic] [--warm]

``--old`` is a checkout of the probe to compare with (a detached ``git worktree add`` of the older commit);
the new one is this checkout. Each run is a child process with that checkout first on ``sys.path``, which
imports the hand-written cases of ``--cases`` (every ``--every``-th one, those ``--only`` names) and measures
the torch.compile path of each with the probe's own :class:`Measurement` (its dynamic-batch pass unless
``--no-dynamic``, its speed pass with ``--speed``), counting with compile_count.py the graphs dynamo handed a
backend (traces) and the graphs inductor compiled, and timing each step (compile, compile:dynamic,
compile:speed): the compile path's worker-seconds. The runs alternate (old first in even repeats, new
first in odd ones); each starts with an empty ``TORCHINDUCTOR_CACHE_DIR`` (a fresh survey), or with
``--warm`` with one its own warm-up run filled (a CI job that restores the cache). The report: per case the
status, breaks, dynamic status, traces and inductor compiles of each side, whether they agree, and the
median seconds; then the sums and the new / old ratio of the compile path's seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def one_run(args: argparse.Namespace) -> int:
    """Inside a child: measure the compile path of each picked case, print one JSON line per case."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from compile_count import counting

    from sphinx_kexport.probe.cases.loader import imported_cases, resolve_sources
    from sphinx_kexport.probe.measure.locate import library_root
    from sphinx_kexport.probe.measure.measurement import Measurement

    specs = [spec for source in resolve_sources(args.cases, Path.cwd()) for spec in imported_cases(source)]
    specs = [s for s in specs if not args.only or any(s.name.startswith(p) for p in args.only)][::args.every]
    root = library_root(args.library)
    for spec in specs:
        seconds: dict[str, float] = {}
        counts: dict[str, list[int]] = {}
        step = [""]
        began = [time.perf_counter()]

        def close() -> None:
            if step[0]:
                seconds[step[0]] = seconds.get(step[0], 0) + time.perf_counter() - began[0]
                counts[step[0]] = [found.captured, found.inductor]

        def started(s: object) -> None:
            close()
            step[0], began[0] = getattr(s, "name"), time.perf_counter()
            found.captured = found.inductor = 0

        measurement = Measurement(spec, "cpu", 18, root, dynamic=not args.no_dynamic, speed=args.speed)
        with counting() as found:
            result = measurement.measure(["compile"], started)["compile"]
            close()
        seconds.pop("eager", None)
        counts.pop("eager", None)
        print("CASE " + json.dumps({"name": spec.name, "status": result["status"],
                                    "breaks": result.get("graph_breaks"),
                                    "dynamic": (result.get("dynamic") or {}).get("status", ""),
                                    "seconds": seconds, "counts": counts}), flush=True)
    return 0


def run(tree: Path, args: argparse.Namespace, cache: Path) -> dict[str, dict]:
    command = [sys.executable, str(Path(__file__).resolve()), "--one-run", *sys.argv[1:]]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]),
               TORCHINDUCTOR_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the run of {tree} failed:\n{done.stderr[-3000:]}")
    cases = [json.loads(line[5:]) for line in done.stdout.splitlines() if line.startswith("CASE ")]
    return {case["name"]: case for case in cases}


def path_seconds(case: dict) -> float:
    return sum(case["seconds"].values())


def steps(case: dict, which: int) -> str:
    """"3+1" : the traces (0) or inductor compiles (1) of each step, in the order the steps ran."""
    return "+".join(str(counts[which]) for counts in case["counts"].values())


def report(runs: dict[str, list[dict[str, dict]]]) -> None:
    names = list(runs["old"][0])
    rows = [("case", "old: status, breaks, dynamic", "traces old→new", "inductor old→new", "same", "old s", "new s")]
    totals = {"old": 0.0, "new": 0.0}
    different = 0
    for name in names:
        old, new = runs["old"][0][name], runs["new"][0][name]
        verdict = lambda c: (c["status"], c["breaks"], c["dynamic"])  # noqa: E731
        same = all(verdict(r[name]) == verdict(old) for side in runs.values() for r in side)
        different += not same
        median = {label: statistics.median(path_seconds(r[name]) for r in side) for label, side in runs.items()}
        for label in totals:
            totals[label] += median[label]
        traces, inductor = (steps(old, 0), steps(new, 0)), (steps(old, 1), steps(new, 1))
        rows.append((name, f"{old['status']}, {old['breaks']}, {old['dynamic'] or '-'}", f"{traces[0]} → {traces[1]}",
                     f"{inductor[0]} → {inductor[1]}", "yes" if same else "NO", f"{median['old']:.2f}",
                     f"{median['new']:.2f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print("\n(traces and inductor compiles per step: compile+dynamic+speed, as the steps ran)")
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))
    print(f"\n{len(names)} cases; statuses, breaks and dynamic statuses identical: "
          f"{'yes' if not different else f'no ({different} differ)'}")
    print(f"compile path, worker-seconds (sum of the per-case medians): old {totals['old']:.1f}, "
          f"new {totals['new']:.1f}, new / old {totals['new'] / totals['old']:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--old", type=Path, help="a checkout of the probe to compare with")
    parser.add_argument("--cases", action="append", required=True, help="hand-written case modules or folders")
    parser.add_argument("--library", default="")
    parser.add_argument("--only", action="append", default=[], help="case names (prefixes) to measure")
    parser.add_argument("--every", type=int, default=1, help="every K-th case")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--no-dynamic", action="store_true")
    parser.add_argument("--warm", action="store_true", help="each side's inductor cache filled by a warm-up run")
    args = parser.parse_args()
    if args.one_run:
        return one_run(args)
    if args.old is None:
        parser.error("--old is required: a checkout of the probe to compare with")
    print(f"load average before the runs: {os.getloadavg()[0]:.2f}", flush=True)
    trees = {"old": args.old.resolve(), "new": REPO}
    runs: dict[str, list[dict[str, dict]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="kexport-compile-") as tmp:
        if args.warm:
            for label, tree in trees.items():
                run(tree, args, Path(tmp) / f"{label}-cache")
        for repeat in range(args.repeats):
            for label in ("old", "new")[:: 1 if repeat % 2 == 0 else -1]:
                cache = Path(tmp) / (f"{label}-cache" if args.warm else f"{label}-{repeat}-cache")
                began = time.perf_counter()
                runs[label].append(run(trees[label], args, cache))
                print(f"  {label} #{repeat + 1}: {time.perf_counter() - began:.0f} s, "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
    report(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
