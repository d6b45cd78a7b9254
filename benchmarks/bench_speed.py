"""Benchmark: what the speed pass (--speed) costs per case, and how repeatable its figures are.

    PYTHONPATH=. python benchmarks/bench_speed.py [--cases benchmarks/speed_cases.py] [--jobs 1] [--out DIR]

Three ``--fresh --no-dynamic`` surveys of the same cases, one after the other: with ``--speed``, without it,
and with ``--speed`` again. The cost: per case, the median over cases of its seconds with the pass less
without it, and the speed steps' own seconds (``--stats``' ``step_seconds``, ``onnx:speed`` ...) per case.
The repeatability, over the cells both ``--speed`` passes timed at the same size: the share whose ratios
agree within 15 %, and of the figures the first pass called faster or slower, the share the second puts on
the same side (a "no clear difference" in the second counts as not keeping it).
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


def survey(cases: str, out: Path, jobs: int, speed: bool) -> tuple[dict, dict, float]:
    stats = out.with_suffix(".stats.json")
    command = [sys.executable, "-m", "sphinx_kexport.probe", "--cases", cases, "--library", "kornia", "--device",
               "cpu", "--jobs", str(jobs), "--no-dynamic", "--fresh", "--out", str(out), "--stats", str(stats)]
    began = time.monotonic()
    subprocess.run(command + (["--speed"] if speed else []), check=True, cwd=REPO, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])))
    return json.loads(out.read_text()), json.loads(stats.read_text()), time.monotonic() - began


def figures(snapshot: dict) -> dict[tuple, dict]:
    found = {}
    for entry in snapshot["cases"]:
        for path, record in entry["results"]["cpu"].items():
            for figure in (record.get("speed") or {}).get("figures", []):
                found[(entry["name"], path, figure["size"], figure["shapes"])] = figure
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="benchmarks/speed_cases.py")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    folder = Path(args.out or tempfile.mkdtemp(prefix="bench-speed-"))
    folder.mkdir(parents=True, exist_ok=True)
    first, first_stats, first_wall = survey(args.cases, folder / "speed-1.json", args.jobs, True)
    _, plain_stats, plain_wall = survey(args.cases, folder / "plain.json", args.jobs, False)
    second, _, second_wall = survey(args.cases, folder / "speed-2.json", args.jobs, True)
    names = sorted(first_stats["case_seconds"])
    extra = [first_stats["case_seconds"][n] - plain_stats["case_seconds"][n] for n in names]
    steps = sum(s for step, s in first_stats["step_seconds"].items() if step.endswith(":speed"))
    print(f"wall: --speed {first_wall:.0f} s and {second_wall:.0f} s, plain {plain_wall:.0f} s ({len(names)} cases)")
    print(f"per case, with the pass less without it: median {statistics.median(extra):.1f} s "
          f"(from {min(extra):.1f} to {max(extra):.1f} s); the speed steps' own seconds: {steps / len(names):.1f} s")
    a, b = figures(first), figures(second)
    both = [key for key in a if key in b]
    agree = [key for key in both if abs(b[key]["ratio"] / a[key]["ratio"] - 1) <= 0.15]
    sided = [key for key in both if a[key]["verdict"] != "unclear"]
    kept = [key for key in sided if b[key]["verdict"] == a[key]["verdict"]]
    print(f"ratios within 15 %: {len(agree)} of {len(both)}; faster/slower kept: {len(kept)} of {len(sided)}")
    for key in both:
        print(f"  {key[0]} {key[1]} at {key[2]} {key[3]}: {a[key]['ratio']:.2f}× ({a[key]['verdict']}) / "
              f"{b[key]['ratio']:.2f}× ({b[key]['verdict']})")
    print(f"snapshots and --stats in {folder}")


if __name__ == "__main__":
    main()
