"""Benchmark: what the page features beyond the tables (reason index, :compare:, downloads, repro, API badges) add to
the page's build time.

Builds the same 1,200-configuration synthetic page (benchmarks/synthetic.py,
CPU and CUDA, with a ``call`` per case so failing cells offer a repro) two
ways, with an API page documenting every referenced operator:

* **off**: ``:reasons: off``, no ``:compare:``, ``kexport_downloads = False``,
  ``kexport_api_badges = False``;
* **page**: the page's own features: the reason index, ``:compare:``
  against an older snapshot (about 3 % of cells differ) and the JSON/CSV
  downloads;
* **on**: all of that plus the API badges (which add a line to each of the
  ~800 entries of the API page, not to the page itself).

Each is measured as the CPU time (user + system) of ``--repeats`` clean
builds in fresh processes, and so is an empty page of the same project, so
that the report shows both the whole build and the time the page itself
adds. One repeat builds every variant back to back, so the ratio is taken
per repeat (paired) and the table reports the median of those ratios: on a
shared machine the speed drifts by ±10 % over a minute, far more than the
features cost, and a pair built seconds apart sees the same drift (the
order within a round is shuffled, so no variant always follows another). The
ratio of the medians and of the fastest builds are printed too. Builds are
pinned to one CPU so that the scheduler moving them does not add noise.
The target: the page's features cost at most 10 % more than "off" (median
paired ratio ≤ 1.10). Next to each median, a 95 % bootstrap interval of it
says how far this machine's noise leaves it uncertain: on this VM a single
build varies by ±15 %, so a 15-round median can move by ±4 % between runs
of the script. Also printed: the HTML page's bytes both ways.

    python benchmarks/bench_features.py [--rows 1200] [--repeats 25] [--builders html text]

This is a benchmark, not a test: nothing fails, it prints a table.
"""

from __future__ import annotations

import argparse
import copy
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

from sphinx_builds import api_page, build_once  # noqa: E402
from synthetic import make_snapshot  # noqa: E402

from sphinx_kexport.snapshot import FAILING, SUPPORTED, dump_snapshot  # noqa: E402

TARGET = 1.10
DEVICES = ("cpu", "cuda")


def with_calls(data: dict) -> dict:
    """Every case gets a ``call`` as the probe records it (fn and inputs)."""
    for case in data["cases"]:
        module = case["package"]
        case["call"] = (f"import torch\nimport {module}\nfn = {module}.{case['operator']}\n"
                        "inputs = (torch.rand(1, 3, 32, 32),)")
    return data


def older(data: dict, share: float = 0.03, seed: int = 7) -> dict:
    """The same survey a release earlier: ``share`` of the cells flipped."""
    rng = random.Random(seed)
    old = copy.deepcopy(data)
    old["generated_at"] = "2025-12-01T00:00:00Z"
    old["library"]["version"] = "0.8.0"
    for case in old["cases"]:
        for paths in case["results"].values():
            for path, result in paths.items():
                if rng.random() >= share:
                    continue
                if result["status"] in SUPPORTED:
                    paths[path] = {"status": "fail", "detail": "no ONNX lowering for aten::grid_sampler",
                                   "stage": "translate", "where": ""}
                elif result["status"] in FAILING:
                    paths[path] = {"status": "ok", "detail": "", "stage": "", "where": ""}
                if path == "compile":
                    paths[path].setdefault("graph_breaks", 0)
    return old


def make_projects(workdir: Path, rows: int) -> dict[str, Path]:
    data = with_calls(make_snapshot(rows, DEVICES, seed=rows))
    old = older(data)
    api = api_page(data)
    title = "Export support\n==============\n\n"
    projects = {}
    for name, conf, directive in (
        ("off", "kexport_downloads = False\nkexport_api_badges = False\n",
         ".. export-support:: _data/snapshot.json\n   :reasons: off\n"),
        ("page", "kexport_downloads = True\nkexport_api_badges = False\n",
         ".. export-support:: _data/snapshot.json\n   :compare: _data/older.json\n"),
        ("on", "kexport_downloads = True\nkexport_api_badges = True\n",
         ".. export-support:: _data/snapshot.json\n   :compare: _data/older.json\n"),
    ):
        for empty in (False, True):
            if empty and name != "off":
                continue  # one empty project is the baseline of "the time the page adds"
            folder = workdir / (name + ("-empty" if empty else ""))
            folder.mkdir(parents=True)
            (folder / "conf.py").write_text(f"project = 'bench'\nextensions = ['sphinx_kexport']\n{conf}",
                                            encoding="utf-8")
            (folder / "index.rst").write_text(title + ("" if empty else directive), encoding="utf-8")
            (folder / "api.rst").write_text(api, encoding="utf-8")
            dump_snapshot(data, folder / "_data" / "snapshot.json")
            dump_snapshot(old, folder / "_data" / "older.json")
            projects[folder.name] = folder
    return projects


def run(rows: int, repeats: int, builders: list[str], workdir: Path) -> dict:
    projects = make_projects(workdir, rows)
    results: dict = {"rows": rows, "repeats": repeats, "builders": {}}
    for builder in builders:
        times: dict[str, list[float]] = {name: [] for name in projects}
        order = random.Random(0)  # the same shuffles on every run of the script
        for _ in range(repeats):
            # every variant in each round, in a shuffled order: drift and whatever the
            # previous build left in the caches hit every side alike
            for name in order.sample(list(projects), len(projects)):
                times[name].append(build_once(projects[name], builder, workdir / f"_build-{name}-{builder}",
                                              silent=True))
        medians = {name: statistics.median(values) for name, values in times.items()}
        fastest = {name: min(values) for name, values in times.items()}
        ratios = {side: [w / o for w, o in zip(times[side], times["off"])] for side in ("page", "on")}
        paired = {side: statistics.median(values) for side, values in ratios.items()}
        interval = {side: median_interval(values) for side, values in ratios.items()}
        results["builders"][builder] = {"median": medians, "min": fastest, "paired": paired,
                                        "interval": interval}
        print(f"   {builder:5s} " + ", ".join(f"{k} {v:.2f} s" for k, v in medians.items()), file=sys.stderr)
        if builder == "html":
            results["bytes"] = {name: (workdir / f"_build-{name}-html" / "index.html").stat().st_size
                                for name in ("off", "page")}
    return results


def median_interval(values: list[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """A 95 % percentile-bootstrap interval of the median of ``values`` (seeded: the same every run)."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def table(results: dict) -> str:
    lines = ["| measure | off, CPU s | with, CPU s | with / off: paired (median) | 95 % interval | of medians "
             "| of minima | target |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for builder, stats in results["builders"].items():
        med, low, paired = stats["median"], stats["min"], stats["paired"]
        for side, what in (("page", "page features"), ("on", "page features + API badges")):
            ratio = paired[side]
            mark = f"≤ {TARGET} ({'ok' if ratio <= TARGET else 'MISSED'})"
            lo, hi = stats["interval"][side]
            lines.append(f"| {builder} build with {what} | {med['off']:.2f} | {med[side]:.2f} | {ratio:.3f} | "
                         f"{lo:.3f}–{hi:.3f} | {med[side] / med['off']:.3f} | {low[side] / low['off']:.3f} | {mark} |")
        added_off, added_page = med["off"] - med["off-empty"], med["page"] - med["off-empty"]
        lines.append(f"| {builder}: the time the page adds (build − empty build), medians | {added_off:.2f} | "
                     f"{added_page:.2f} | — | — | {added_page / added_off if added_off > 0 else float('nan'):.3f} | — "
                     "| info |")
    if "bytes" in results:
        b = results["bytes"]
        lines.append(f"| page HTML (bytes) | {b['off']:,} | {b['page']:,} | — | — | {b['page'] / b['off']:.3f} | — "
                     "| info |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1200)
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--builders", nargs="+", default=["html", "text"])
    parser.add_argument("--keep", help="build here and keep the projects (default: a temporary folder)")
    args = parser.parse_args(argv)
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kexport-features-"))
    try:
        results = run(args.rows, args.repeats, args.builders, workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(table(results))
    print(f"\n{results['rows']:,} configurations on CPU and CUDA; medians, paired ratios and minima of {results['repeats']} clean "
          "builds in fresh processes, CPU time; the API page documents every operator on both sides.")


if __name__ == "__main__":
    main()
