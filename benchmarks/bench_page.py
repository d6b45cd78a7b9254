"""Benchmark: the export-support page against the reference's list-tables.

For each size (default 1,200 and 5,000 configurations on CPU and CUDA) it
writes a synthetic snapshot (benchmarks/synthetic.py) and four Sphinx
projects: the page (``.. export-support::``), the same rows as docutils
list-tables with role cells (benchmarks/baseline_listtable.py), and an empty
page for each, all with the same API page so that operator references
resolve on both sides. It then measures, as medians over ``--repeats``
clean builds in fresh processes:

* the build time the page adds (page build minus empty build) with the
  html, text and latex builders (latex writes .tex, no PDF), as CPU time
  (user + system) of the build process: Sphinx builds on one core, and CPU
  time does not count the time other processes on a shared machine take;
* the bytes of the page's HTML (and, for information, of the list-table page
  carrying the same fix words as the page's Details, and of one carrying everything the page shows: its marks,
  notes, other names, speed figures, library statements and calls, ``baseline_listtable.render(...,
  everything=True)``: the list-table side otherwise carries none of them, which a real snapshot has);

and, for the largest size, in headless Chromium: the first enhancement of
the page (``window.kexportTimings.init``) and the time a search keystroke
takes to apply (the input handler, timed in the page around the event),
plus the time until the next frame for information.

Last, at the first size, what the page features beyond the tables (reason index, :compare:, downloads, repro, API
badges) add to
the page's build (benchmarks/bench_features.py: the reason index,
``:compare:``, downloads and API badges, each on against off; paired
medians of ``--features-repeats`` rounds, target ≤ 1.10).

    python benchmarks/bench_page.py [--sizes 1200 5000] [--repeats 3] [--builders html text latex]
                                    [--features-repeats 25] [--versions 1] [--json out.json]

``--versions 3``: a page across three torch versions (``synthetic.torch_versions``: 4 % of the cells
flip between versions, 1 % of the cases are new in each) against the list-table approach's one page
per version (three list-table documents; the byte figures then compare our one page with the three).

``--varied-reasons``: the synthetic failures each name a step of their own (``synthetic.make_snapshot``), so
nearly every failing cell has its own reason index entry. ``--snapshot FILE``: a real snapshot (the kornia
example's ``example_docs/_data/export_support.json``) instead of a synthetic one, at its own size
(``--sizes`` is then ignored); the page uses the directive's default options.

This is a benchmark, not a test: nothing fails, it prints a table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO / "tests" / "page"), str(REPO)]

import bench_features  # noqa: E402
from baseline_listtable import render as render_listtable  # noqa: E402
from sphinx_builds import api_page, build_once  # noqa: E402
from synthetic import make_snapshot, torch_versions  # noqa: E402

from sphinx_kexport.page.model.page_model import build_model  # noqa: E402
from sphinx_kexport.snapshot import build, dump_snapshot  # noqa: E402
from sphinx_kexport.snapshot.files import read_snapshot  # noqa: E402

DEVICES = ("cpu", "cuda")
BUILDERS = ("html", "text", "latex")
TARGETS = {"html": 0.15, "text": 0.10, "latex": 0.10, "bytes": 0.60, "keystroke": 16.0, "init": 50.0}
QUERIES = ("warp", "geometry svd", "no onnx lowering", "kornia.filters blur", "mismatch")


# --------------------------------------------------------------------------
# projects


def _write_project(folder: Path, extension: str, index: str, api: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "conf.py").write_text(f"project = 'bench'\nextensions = [{extension!r}]\n", encoding="utf-8")
    (folder / "index.rst").write_text(index, encoding="utf-8")
    (folder / "api.rst").write_text(api, encoding="utf-8")
    return folder


def make_projects(workdir: Path, rows: int, versions: int = 1, varied: bool = False,
                  snapshot: dict | None = None, snapshot_file: str | None = None) -> dict[str, Path]:
    data = snapshot if snapshot is not None else make_snapshot(rows, DEVICES, seed=rows, varied_reasons=varied)
    snapshots = torch_versions(data, versions, seed=rows) if versions > 1 else [data]
    names = [f"_data/snapshot-{i}.json" for i in range(len(snapshots))]
    api = api_page(data)
    title = "Export support\n==============\n\n"
    ours = _write_project(workdir / "ours", "sphinx_kexport",
                          title + f".. export-support:: {' '.join(reversed(names))}\n", api)
    if snapshot_file and len(snapshots) == 1:
        # the file as it is: written out again, an older snapshot's causes read from its words would be
        # records, and the page would group its reasons by them instead of by words as the real page does
        (ours / "_data").mkdir(exist_ok=True)
        shutil.copyfile(snapshot_file, ours / names[0])
    else:
        for name, snapshot in zip(names, snapshots):
            dump_snapshot(snapshot, ours / name)
    # the list-table approach: no page shows several versions, so one page (document) per version
    if len(snapshots) == 1:
        model = build_model(build(data, "synthetic"))
        listtable = _write_project(workdir / "listtable", "sphinx_design", render_listtable(model), api)
        # the same, with each failure's fix in words as the page's Details give them: bytes only
        extra = {"listtable-fixes": _write_project(workdir / "listtable-fixes", "sphinx_design",
                                                   render_listtable(model, fixes=True), api),
                 # and with everything else the page shows (marks, notes, speed figures, code, calls)
                 "listtable-all": _write_project(workdir / "listtable-all", "sphinx_design",
                                                 render_listtable(model, fixes=True, everything=True), api)}
    else:  # no list-table with the fixes: the bytes compare one page with three
        extra = {}
        toc = title + ".. toctree::\n\n" + "".join(f"   torch-{i}\n" for i in range(len(snapshots)))
        listtable = _write_project(workdir / "listtable", "sphinx_design", toc, api)
        for i, snapshot in enumerate(snapshots):
            (listtable / f"torch-{i}.rst").write_text(render_listtable(build_model(build(snapshot, "synthetic")),
                                                                       title=f"Export support {i}"), encoding="utf-8")
    return {
        "ours": ours,
        "ours-empty": _write_project(workdir / "ours-empty", "sphinx_kexport", title, api),
        "listtable": listtable,
        "listtable-empty": _write_project(workdir / "listtable-empty", "sphinx_design", title, api),
        **extra,
    }


# --------------------------------------------------------------------------
# builds


def added_build_time(page: Path, empty: Path, builder: str, repeats: int, out: Path) -> tuple[float, float]:
    """(median page build, median empty build), alternating so drift hits both."""
    page_times, empty_times = [], []
    for _ in range(repeats):
        page_times.append(build_once(page, builder, out / "page"))
        empty_times.append(build_once(empty, builder, out / "empty"))
    return statistics.median(page_times), statistics.median(empty_times)


# --------------------------------------------------------------------------
# browser

KEYSTROKES_JS = """
const [queries, done] = [arguments[0], arguments[arguments.length - 1]];
const input = document.querySelector('.kexport-controls input[type=search]');
const nextFrame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
(async () => {
  const handler = [], frame = [];
  for (const q of queries) {
    for (let i = 1; i <= q.length; i++) {
      input.value = q.slice(0, i);
      const t0 = performance.now();
      input.dispatchEvent(new Event('input', {bubbles: true}));
      handler.push(performance.now() - t0);
      await nextFrame();
      frame.push(performance.now() - t0);
    }
    input.value = '';
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await nextFrame();
  }
  done({handler, frame});
})();
"""


def browser_metrics(html_dir: Path, loads: int = 5) -> dict[str, float]:
    from browser_support import chromium, serve

    inits, handler, frame = [], [], []
    with serve(html_dir) as base, chromium() as driver:
        driver.set_script_timeout(120)
        for _ in range(loads):
            driver.get(base + "index.html")
            time.sleep(0.5)  # a reader does not type within half a second of the page appearing
            inits.append(driver.execute_script("return window.kexportTimings.init"))
            timings = driver.execute_async_script(KEYSTROKES_JS, list(QUERIES))
            handler += timings["handler"]
            frame += timings["frame"]
        rows = driver.execute_script("return window.kexportTimings.rows")
    return {"rows": rows, "init": statistics.median(inits), "keystroke": statistics.median(handler),
            "keystroke_p90": statistics.quantiles(handler, n=10)[-1], "frame": statistics.median(frame),
            "keystrokes": len(handler)}


# --------------------------------------------------------------------------
# report


def _ratio(ours: float, theirs: float) -> float:
    return ours / theirs if theirs > 0 else float("inf")


def run(sizes: list[int], repeats: int, workdir: Path, builders: list[str], versions: int = 1,
        varied: bool = False, snapshot: dict | None = None, snapshot_file: str | None = None) -> dict:
    results: dict = {"repeats": repeats, "builders": builders, "sizes": {}, "versions": versions,
                     "varied_reasons": varied}
    if snapshot is not None:
        sizes = [len(snapshot["cases"])]
    for rows in sizes:
        print(f"-- {rows} configurations" + (f" x {versions} torch versions" if versions > 1 else ""),
              file=sys.stderr)
        projects = make_projects(workdir / str(rows), rows, versions, varied, snapshot, snapshot_file)
        size: dict = {}
        for builder in builders:
            entry = {}
            for side in ("ours", "listtable"):
                page, empty = added_build_time(projects[side], projects[f"{side}-empty"], builder, repeats,
                                               workdir / str(rows) / f"_build-{side}-{builder}")
                entry[side] = {"page": page, "empty": empty, "added": max(page - empty, 0.0)}
                print(f"   {builder:5s} {side:9s} page {page:6.2f} s, empty {empty:5.2f} s (CPU)", file=sys.stderr)
            size[builder] = entry
        size["bytes"], size["gzip"] = {}, {}
        for side in ("ours", "listtable", "listtable-fixes", "listtable-all"):
            if side not in projects:  # several versions: no list-table with the fixes
                continue
            out = workdir / str(rows) / f"_build-{side}-html"
            build_once(projects[side], "html", out / "page")
            # the page, or with several versions the list-table approach's page per version
            html = b"".join(p.read_bytes() for p in [out / "page" / "index.html",
                                                      *sorted((out / "page").glob("torch-*.html"))])
            size["bytes"][side] = len(html)
            size["gzip"][side] = len(gzip.compress(html))
            if side == "ours":
                size["html_dir"] = str(out / "page")
        results["sizes"][rows] = size
    largest = max(sizes)
    print(f"-- Chromium, {largest} configurations", file=sys.stderr)
    results["browser"] = browser_metrics(Path(results["sizes"][largest].pop("html_dir")))
    for size in results["sizes"].values():
        size.pop("html_dir", None)
    return results


def table(results: dict) -> str:
    lines = ["| measure | rows | sphinx-kexport | list-table | ratio | target |", "|---|---:|---:|---:|---:|---|"]
    for rows, size in results["sizes"].items():
        for builder in results["builders"]:
            ours, theirs = size[builder]["ours"]["added"], size[builder]["listtable"]["added"]
            ratio = _ratio(ours, theirs)
            mark = "ok" if ratio <= TARGETS[builder] else "MISSED"
            lines.append(f"| added {builder} build, CPU s | {rows:,} | {ours:.2f} | {theirs:.2f} | "
                         f"{ratio:.3f} | ≤ {TARGETS[builder]} ({mark}) |")
        ours, theirs = size["bytes"]["ours"], size["bytes"]["listtable"]
        ratio = _ratio(ours, theirs)
        mark = "ok" if ratio <= TARGETS["bytes"] else "MISSED"
        lines.append(f"| page HTML (bytes) | {rows:,} | {ours:,} | {theirs:,} | {ratio:.3f} | "
                     f"≤ {TARGETS['bytes']} ({mark}) |")
        if "listtable-fixes" in size["bytes"]:  # the same words on both sides: what the markup costs
            theirs = size["bytes"]["listtable-fixes"]
            lines.append(f"| page HTML, the list-table with the same fix words (bytes) | {rows:,} | {ours:,} | "
                         f"{theirs:,} | {_ratio(ours, theirs):.3f} | info |")
        if "listtable-all" in size["bytes"]:  # everything the page shows, in list-table markup
            theirs = size["bytes"]["listtable-all"]
            lines.append(f"| page HTML, the list-table with everything the page shows (bytes) | {rows:,} | {ours:,} | "
                         f"{theirs:,} | {_ratio(ours, theirs):.3f} | info |")
        ours, theirs = size["gzip"]["ours"], size["gzip"]["listtable"]
        lines.append(f"| page HTML gzipped (bytes) | {rows:,} | {ours:,} | {theirs:,} | {_ratio(ours, theirs):.3f} "
                     "| info |")
    b = results["browser"]
    for key, label in (("keystroke", "search keystroke applied, median (ms)"),
                       ("init", "first enhancement, median of loads (ms)")):
        mark = "ok" if b[key] <= TARGETS[key] else "MISSED"
        lines.append(f"| {label} | {b['rows']:,} | {b[key]:.2f} | — | — | ≤ {TARGETS[key]:g} ({mark}) |")
    lines.append(f"| search keystroke, 90th percentile (ms) | {b['rows']:,} | {b['keystroke_p90']:.2f} | — | — | info |")
    lines.append(f"| keystroke until the next frame, median (ms) | {b['rows']:,} | {b['frame']:.2f} | — | — | info |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1200, 5000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--builders", nargs="*", default=list(BUILDERS), choices=BUILDERS,
                        help="builders to time (none: only bytes and the browser)")
    parser.add_argument("--features-repeats", type=int, default=25,
                        help="rounds of the features-on/off builds (bench_features.py); 0 skips them")
    parser.add_argument("--versions", type=int, default=1, help="torch versions on the page (default 1)")
    parser.add_argument("--varied-reasons", action="store_true",
                        help="synthetic failures with a reason of their own each")
    parser.add_argument("--snapshot", help="measure this snapshot file instead of synthetic ones")
    parser.add_argument("--json", help="also write the raw results here")
    parser.add_argument("--keep", help="build here and keep the projects (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.repeats < 3:
        parser.error("--repeats must be at least 3 (medians)")
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kexport-bench-"))
    try:
        snapshot = read_snapshot(args.snapshot, args.snapshot)[0] if args.snapshot else None
        results = run(args.sizes, args.repeats, workdir, args.builders, args.versions, args.varied_reasons,
                      snapshot, args.snapshot)
        if args.features_repeats and args.builders:
            results["features"] = bench_features.run(args.sizes[0], args.features_repeats, args.builders,
                                                   workdir / "features")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(table(results))
    print(f"\nmedians of {args.repeats} clean builds per cell, CPU time of the build process; "
          "added = page build − empty-page build; "
          f"{results['browser']['keystrokes']} keystrokes over {len(QUERIES)} queries; "
          "list-tables as benchmarks/baseline_listtable.py writes them.")
    if "features" in results:
        print("\nWhat the features add to the page's build (benchmarks/bench_features.py):\n")
        print(bench_features.table(results["features"]))
        print(f"\n{results['features']['rows']:,} configurations; paired medians of "
              f"{results['features']['repeats']} rounds of clean builds, CPU time.")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
