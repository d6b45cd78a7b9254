"""Benchmark: what the warm fork server's inductor warm-up costs the server and saves each worker.

    python benchmarks/bench_warm_start.py [--repeats 5] [--children 2]

Each repeat starts a fresh Python that starts the probe's fork server (``run/warm_start.py``) and forks
``--children`` children from it, one after the other, as a survey forks its workers. Each child runs one
``torch.compile`` of a small function (the first of its life) and says how long it took. Two sides, run
alternately in one run: the server as it is (it imports inductor and picks the CPU's vector instruction set),
and the same server with that warm-up off (``KEXPORT_WARM_INDUCTOR=off``). The table gives medians: the
server's start (until its first child is running), each child's first compile, and what a survey of N workers
gains (N × the compile saving − the start cost). Inductor's disk cache is shared by both sides and warmed once
before the first repeat, so the difference is the per-process work only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DRIVER = r'''
import json, sys, time
from sphinx_kexport.probe.run.warm_start import worker_context

def child(conn):
    import time
    import torch
    x = torch.rand(2, 3, 8, 8)
    began = time.perf_counter()
    torch.compile(lambda t: (t.sin() + 1).mean(1))(x)
    conn.send(time.perf_counter() - began)

def ready(conn):
    conn.send(0.0)

if __name__ == "__main__":
    began = time.perf_counter()
    context = worker_context(1)
    receiving, sending = context.Pipe(duplex=False)
    first = context.Process(target=ready, args=(sending,)); first.start(); receiving.recv(); first.join()
    start = time.perf_counter() - began
    compiles = []
    for _ in range(int(sys.argv[1])):
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(target=child, args=(sending,)); process.start()
        compiles.append(receiving.recv()); process.join()
    print(json.dumps({"start": start, "compiles": compiles}))
'''


def run(children: int, warm_inductor: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if not warm_inductor:
        env["KEXPORT_WARM_INDUCTOR"] = "off"
    with tempfile.TemporaryDirectory() as scratch:
        driver = Path(scratch) / "driver.py"  # a file: the children find its functions by importing it again
        driver.write_text(DRIVER)
        done = subprocess.run([sys.executable, str(driver), str(children)], env=env, capture_output=True, text=True,
                              timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--children", type=int, default=2)
    args = parser.parse_args()
    import torch

    print(f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
          f"torch {torch.__version__}; {args.repeats} repeats, {args.children} children each")
    run(1, True)  # inductor's disk cache (the compiled kernel, the instruction-set test libraries) for both sides
    sides: dict[str, list[dict]] = {"warm-up on": [], "warm-up off": []}
    for _ in range(args.repeats):
        for name in sides:
            sides[name].append(run(args.children, name == "warm-up on"))
    rows = {}
    for name, runs in sides.items():
        rows[name] = (statistics.median(r["start"] for r in runs),
                      statistics.median(r["compiles"][0] for r in runs),
                      statistics.median(c for r in runs for c in r["compiles"][1:]) if args.children > 1 else 0.0)
    print(f"\n{'side':<12} {'server start (s)':>17} {'1st child compile (s)':>22} {'later children (s)':>19}")
    for name, (start, first, later) in rows.items():
        print(f"{name:<12} {start:>17.2f} {first:>22.2f} {later:>19.2f}")
    on, off = rows["warm-up on"], rows["warm-up off"]
    cost, saving = on[0] - off[0], off[1] - on[1]
    print(f"\nthe warm-up costs the server {cost:.2f} s once and saves each worker {saving:.2f} s "
          f"(compile ratio on/off {on[1] / off[1]:.2f}); a survey that starts N workers gains N x {saving:.2f} - "
          f"{cost:.2f} s: {'a gain from one worker' if saving > cost else f'a gain from {int(cost // saving) + 1} workers'}")


if __name__ == "__main__":
    main()
