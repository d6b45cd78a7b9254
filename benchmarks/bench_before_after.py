"""Benchmark: this checkout against an earlier commit, side by side in one run.

    python benchmarks/bench_before_after.py --base fddfbcd [--head REV] [--rows 1200] [--rounds 9]
        [--probe-rounds 3] [--probe-only PATTERN ...]

For a change that must not cost anything (a restructuring, say): the same
synthetic page (``synthetic.py``, API badges on, an API page that resolves
every reference) is built by both checkouts in each round, in a shuffled
order, html, text and latex, each build a clean one in a fresh interpreter
pinned to one CPU (``sphinx_builds.build_once``); then both checkouts' probes
run the same hand-written cases (the base's example kornia.filters cases
matching ``--probe-only``, in one process, cold inductor caches), alternating
base and head ``--probe-rounds`` times. The tables give the median CPU seconds
of each and the median of the paired ratios (head / base): above 1 is slower.
``--head`` compares two earlier commits (e.g. to tell one change's cost from
another's); ``--rounds 0`` skips the page builds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

from sphinx_builds import api_page, build_once, children_cpu  # noqa: E402
from synthetic import make_snapshot  # noqa: E402

from sphinx_kexport.snapshot import dump_snapshot  # noqa: E402

BUILDERS = ("html", "text", "latex")


def checkout(rev: str, into: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(into), rev], check=True,
                   capture_output=True)
    return into


def project(root: Path, rows: int) -> Path:
    snapshot = make_snapshot(rows, devices=("cpu", "cuda"))
    (root / "_data").mkdir(parents=True)
    dump_snapshot(snapshot, root / "_data" / "export_support.json")
    (root / "conf.py").write_text('extensions = ["sphinx_kexport"]\nkexport_api_badges = True\n')
    (root / "index.rst").write_text("Survey\n======\n\n.. export-support:: _data/export_support.json\n\n"
                                    ".. toctree::\n\n   api\n")
    (root / "api.rst").write_text(api_page(snapshot).replace(":orphan:\n", ""))
    return root


def build_times(checkouts: dict[str, Path], page: Path, out: Path, rounds: int) -> dict[str, dict[str, list]]:
    times: dict[str, dict[str, list[float]]] = {b: {name: [] for name in checkouts} for b in BUILDERS}
    order = [(name, builder) for name in checkouts for builder in BUILDERS]
    rng = random.Random(0)
    for i in range(rounds):
        rng.shuffle(order)
        for name, builder in order:
            os.environ["PYTHONPATH"] = str(checkouts[name])
            times[builder][name].append(build_once(page, builder, out / f"{name}-{builder}", silent=True))
        print(f"  round {i + 1}/{rounds}", file=sys.stderr)
    return times


def probe_time(source: Path, cases: Path, work: Path, only: list[str]) -> tuple[float, dict]:
    out = work / "snapshot.json"
    env = dict(os.environ, PYTHONPATH=str(source), TORCHINDUCTOR_CACHE_DIR=str(work / "inductor"))
    command = [sys.executable, "-m", "sphinx_kexport.probe", "--cases", str(cases), "--out", str(out),
               "--library", "kornia", "--jobs", "1", "--timeout", "900"]
    for pattern in only:
        command += ["--only", pattern]
    began = children_cpu()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 4):  # 4: some case failed eagerly (newer probes say so)
        raise SystemExit(f"the probe of {source} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(out.read_text())
    statuses = {c["name"]: {p: r["status"] for p, r in c["results"]["cpu"].items()} for c in data["cases"]
                if c["results"]}
    return children_cpu() - began, statuses


def probe_times(checkouts: dict[str, Path], work: Path, only: list[str], rounds: int) -> dict[str, tuple]:
    cases = checkouts["base"] / "example_docs" / "cases" / "cases_filters.py"  # cases both probes understand
    seconds: dict[str, list[float]] = {name: [] for name in checkouts}
    statuses: dict[str, dict] = {}
    for i in range(rounds):
        for name, source in (checkouts.items() if i % 2 == 0 else reversed(checkouts.items())):
            where = work / f"probe-{name}-{i}"
            where.mkdir()
            spent, statuses[name] = probe_time(source, cases, where, only)
            seconds[name].append(spent)
        print(f"  probe round {i + 1}/{rounds}", file=sys.stderr)
    return {name: (seconds[name], statuses[name]) for name in checkouts}


def paired(base: list[float], head: list[float]) -> float:
    return statistics.median(h / b for b, h in zip(base, head))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit to compare with")
    parser.add_argument("--head", help="a commit to use instead of this checkout")
    parser.add_argument("--rows", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--probe-only", nargs="*", default=["gaussian_blur2d*", "sobel*", "median_blur*"],
                        help="--only patterns of the example's kornia.filters cases to probe (none: skip)")
    parser.add_argument("--probe-rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kexport-before-after-") as tmp:
        work = Path(tmp)
        head = checkout(args.head, work / "head") if args.head else REPO
        checkouts = {"base": checkout(args.base, work / "base"), "head": head}
        label = args.head or "this checkout"
        try:
            if args.rounds:
                page = project(work / "page", args.rows)
                times = build_times(checkouts, page, work / "out", args.rounds)
                print(f"\nPage build, {args.rows} rows on CPU and CUDA, API badges on; CPU seconds, median of "
                      f"{args.rounds} (base {args.base}):\n")
                print(f"| builder | base | {label} | paired ratio |\n|---|---:|---:|---:|")
                for builder in BUILDERS:
                    base, head_times = times[builder]["base"], times[builder]["head"]
                    print(f"| {builder} | {statistics.median(base):.3f} | {statistics.median(head_times):.3f} | "
                          f"{paired(base, head_times):.3f} |")
            if args.probe_only and args.probe_rounds:
                results = probe_times(checkouts, work, args.probe_only, args.probe_rounds)
                print(f"\nProbe, the base's kornia.filters cases matching {' '.join(args.probe_only)}, one "
                      f"process, cold caches; CPU seconds, median of {args.probe_rounds}:\n")
                print(f"| base | {label} | paired ratio | statuses |\n|---:|---:|---:|---|")
                (base, base_statuses), (head_times, head_statuses) = results["base"], results["head"]
                same = "same" if head_statuses == base_statuses else "DIFFER"
                print(f"| {statistics.median(base):.1f} | {statistics.median(head_times):.1f} | "
                      f"{paired(base, head_times):.3f} | {same} |")
        finally:
            os.environ.pop("PYTHONPATH", None)
            for name in ("base", "head"):
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(work / name)],
                               capture_output=True)


if __name__ == "__main__":
    main()
