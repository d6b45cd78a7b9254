"""Benchmark: this checkout against an earlier commit, side by side in one run.

    python benchmarks/bench_before_after.py --base fddfbcd [--rows 1200] [--rounds 9] [--probe-only PATTERN ...]

For a change that must not cost anything (a restructuring, say): the same
synthetic page (``synthetic.py``, API badges on, an API page that resolves
every reference) is built by both checkouts in each round, in a shuffled
order, html, text and latex, each build a clean one in a fresh interpreter
pinned to one CPU (``sphinx_builds.build_once``); then both checkouts' probes
run the same hand-written cases (the example's kornia.filters cases matching ``--probe-only``, in one
process, cold inductor caches). The table gives the median CPU seconds of
each and the median of the paired ratios (this checkout / base): above 1 is
slower.
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


def paired(base: list[float], head: list[float]) -> float:
    return statistics.median(h / b for b, h in zip(base, head))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit to compare with")
    parser.add_argument("--rows", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--probe-only", nargs="*", default=["gaussian_blur2d*", "sobel*", "median_blur*"],
                        help="--only patterns of the example's kornia.filters cases to probe (none: skip)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kexport-before-after-") as tmp:
        work = Path(tmp)
        checkouts = {"base": checkout(args.base, work / "base"), "head": REPO}
        try:
            page = project(work / "page", args.rows)
            times = build_times(checkouts, page, work / "out", args.rounds)
            print(f"\nPage build, {args.rows} rows on CPU and CUDA, API badges on; CPU seconds, median of "
                  f"{args.rounds} (base {args.base}):\n")
            print("| builder | base | this checkout | paired ratio |\n|---|---:|---:|---:|")
            for builder in BUILDERS:
                base, head = times[builder]["base"], times[builder]["head"]
                print(f"| {builder} | {statistics.median(base):.3f} | {statistics.median(head):.3f} | "
                      f"{paired(base, head):.3f} |")
            if args.probe_only:
                cases = REPO / "example_docs" / "cases" / "cases_filters.py"
                names = args.probe_only
                print(f"\nProbe, the cases of {cases.name} matching {' '.join(names)}, one process, cold "
                      "caches:\n")
                print("| checkout | CPU seconds | statuses |\n|---|---:|---|")
                results = {}
                for name, source in checkouts.items():
                    (work / f"probe-{name}").mkdir()
                    results[name] = probe_time(source, cases, work / f"probe-{name}", names)
                for name, (seconds, _) in results.items():
                    same = "same as base" if results[name][1] == results["base"][1] else "differ from base"
                    print(f"| {name} | {seconds:.1f} | {same} |")
        finally:
            os.environ.pop("PYTHONPATH", None)
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(work / "base")],
                           capture_output=True)


if __name__ == "__main__":
    main()
