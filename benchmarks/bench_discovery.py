"""Benchmark: discovery of one package, this checkout against an earlier commit, side by side.

    python benchmarks/bench_discovery.py --base e7c8d90 [--package piq] [--rounds 3]
        [--python /path/to/venv/bin/python] [--tests DIR --jobs N --path DIR]

Each round runs ``python -m sphinx_kexport.probe discover PACKAGE --no-cases``
with the discovery cache off (every example runs, as on a cold cache) once
with each checkout, in a shuffled order, each in a fresh interpreter. The
table gives the median wall seconds and peak memory (the process's maximum
resident set) of each, and the median of the paired ratios (head / base):
below 1 is faster / smaller. ``--python`` picks the interpreter (piq needs
an environment with torchvision); both checkouts run under it. The base is
checked out into a temporary git worktree and removed afterwards.

``--tests DIR`` discovers from a test suite instead (``discover PACKAGE --tests DIR --jobs N``), ``--path``
puts the package's folder on the path. The CPU seconds count every process of the run (the discovering
process and the children it waited for: its test shards). A small suite against the commit before the
shard floor (``MIN_TESTS_PER_SHARD``)::

    python benchmarks/bench_discovery.py --base 68c6b28 --package suitelib --path \
        tests/probe/probe_cases/suiteproject --tests tests/probe/probe_cases/suiteproject/tests --jobs 2
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def discover_once(checkout: Path, package: str, python: str, extra: list[str],
                  path: str = "") -> tuple[float, float, float]:
    """(wall seconds, peak resident GB, CPU seconds) of one cold discovery by ``checkout``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(checkout), path))),
               KEXPORT_DISCOVERY_CACHE="off")
    began = time.monotonic()
    child = subprocess.Popen([python, "-m", "sphinx_kexport.probe", "discover", package, "--no-cases", *extra],
                             cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"discover {package} failed in {checkout} (exit {os.waitstatus_to_exitcode(status)})")
    # ru_maxrss (KiB) is the discovering process's own peak; the CPU times include the children it waited for
    return seconds, usage.ru_maxrss / 1024 / 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit to compare with")
    parser.add_argument("--package", default="kornia.models")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--tests", help="discover from this test suite (discover --tests)")
    parser.add_argument("--jobs", type=int, help="discover --jobs")
    parser.add_argument("--path", default="", help="a folder to put on the path (where the package lives)")
    args = parser.parse_args()
    extra = (["--tests", str(Path(args.tests).resolve())] if args.tests else []) + (
        ["--jobs", str(args.jobs)] if args.jobs else [])
    path = str(Path(args.path).resolve()) if args.path else ""
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=REPO, check=True)
        try:
            runs: dict[str, list[tuple[float, float]]] = {"base": [], "head": []}
            for round_ in range(args.rounds):
                order = [("base", base), ("head", REPO)]
                random.shuffle(order)
                for side, checkout in order:
                    runs[side].append(discover_once(checkout, args.package, args.python, extra, path))
                    print(f"round {round_ + 1}: {side} {runs[side][-1][0]:.1f} s, {runs[side][-1][1]:.2f} GB, "
                          f"{runs[side][-1][2]:.1f} CPU s",
                          file=sys.stderr, flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO, check=False)
    print(f"\ndiscover {args.package} --no-cases {' '.join(extra)}, discovery cache off, {args.rounds} rounds "
          f"(base {args.base}, head {REPO.name} working tree)\n")
    print(f"{'':14}{'base':>10}{'head':>10}{'head/base':>12}")
    for label, index, unit in (("wall", 0, "s"), ("peak memory", 1, "GB"), ("CPU", 2, "s")):
        base_median = statistics.median(r[index] for r in runs["base"])
        head_median = statistics.median(r[index] for r in runs["head"])
        ratio = statistics.median(h[index] / b[index] for h, b in zip(runs["head"], runs["base"]))
        print(f"{label:14}{base_median:>9.2f}{unit[0]}{head_median:>9.2f}{unit[0]}{ratio:>12.2f}")


if __name__ == "__main__":
    main()
