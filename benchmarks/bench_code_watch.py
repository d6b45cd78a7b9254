"""Benchmark: what recording the code each case runs costs a survey, and what it adds to the snapshot.

    PYTHONPATH=.:KORNIA KORNIA_SOURCE=KORNIA python benchmarks/bench_code_watch.py \\
        --cases example_docs/cases/cases_augmentation.py --library kornia --no-dynamic \\
        --only ColorJiggle --only RandomHue ... [--repeats 2] [--keep DIR]

(KORNIA: a kornia checkout, first on the path so that it is the one surveyed.) Every run is a ``--fresh``
survey of the same cases with ``--jobs 2`` (``--jobs``), the code watch on and off
(``ProbeConfig(watch_code=...)``, which only the Python API sets), alternating (on first in even rounds,
off first in odd ones), after one warm-up run with the watch on that fills the discovery and inductor
caches all the runs then share (``--no-warm-up``: the caches that ``KEXPORT_DISCOVERY_CACHE`` and
``TORCHINDUCTOR_CACHE_DIR`` name are already warm). Each run is timed from outside (process start to
exit, imports included); a sampler reads ``/proc`` for the peak memory (``VmHWM``) of the probe's own
process and of its largest descendant, and the run's ``--stats`` gives each case's seconds, each step's
and each worker's peak. The table gives medians over the repeats: wall, the sum and the median of the
per-case seconds, peaks, and the on / off ratios (per case: the median over cases of each case's on / off
ratio of its median seconds). Then the snapshot's bytes with the watch and without it: the ``code`` table
and the stamps' ``code`` ids, per case and extrapolated to ``--extrapolate`` cases (an extrapolation: the
full survey's cases run other code).

The whole survey's cost, sampled: ``--sample-from SNAPSHOT --every K`` measures every K-th case of that
snapshot's inventory (in its order: every module, section and origin in proportion), each one alone: a
case whose name begins another case's name is passed over for the next one, since ``--only`` matches
prefixes. The report then scales the sums up to the snapshot's cases, and gives the ratio again without
the cases a step of which ran into the time limit (that step takes the limit, watched or not). With
``--keep DIR`` each run's folder keeps what the report reads; ``--report-from DIR`` prints it again.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_survey_memory import gib, machine, run_sampled

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sphinx_kexport.snapshot.code_table import unpack  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def one_run(watch: bool, probe_args: list[str]) -> int:
    """Inside a child: the probe's command line, with the watch set as the Python API sets it."""
    from sphinx_kexport.probe.cli.probe import probe_parser
    from sphinx_kexport.probe.survey.api import run_survey
    from sphinx_kexport.probe.survey.config import build_config

    config = build_config(probe_parser().parse_args(probe_args), Path.cwd())
    result = run_survey(dataclasses.replace(config, watch_code=watch))
    print(f"measured {result.counts.measured}")
    return 0


def survey(watch: bool, probe_args: list[str], run: Path, caches: dict[str, str]) -> dict:
    run.mkdir(parents=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--one-run", "on" if watch else "off", "--",
               *probe_args, "--fresh", "--out", str(run / "snapshot.json"), "--stats", str(run / "stats.json")]
    env = dict(os.environ, PYTHONUNBUFFERED="1", **caches)
    found = run_sampled(command, REPO, env, run / "log.txt")
    if found["status"]:
        raise SystemExit(f"the run in {run} failed ({found['status']}); see {run / 'log.txt'}")
    (run / "sampled.json").write_text(json.dumps(found))  # for --report-from
    return kept_run(run, found)


def kept_run(run: Path, found: dict) -> dict:
    """A run's figures from its folder: its stats and snapshot, beside what the sampler found."""
    stats = json.loads((run / "stats.json").read_text())
    found["case_seconds"] = stats["case_seconds"]
    found["steps"] = stats["step_seconds"]
    found["worker_kb"] = max((w["peak_rss_kb"] for w in stats["workers"]), default=0)
    found["snapshot"] = json.loads((run / "snapshot.json").read_text())
    found["bytes"] = (run / "snapshot.json").stat().st_size
    return found


def kept_runs(folder: Path, label: str) -> list[dict]:
    """The runs ``--keep`` kept of one side ("on", "off"); a run kept before ``sampled.json`` existed has no
    wall or peaks (shown as nan and 0)."""
    found = []
    for run in sorted(folder.glob(f"{label}-*")):
        sampled = run / "sampled.json"
        found.append(kept_run(run, json.loads(sampled.read_text()) if sampled.exists()
                              else {"seconds": float("nan"), "parent_kb": 0, "child_kb": 0}))
    if not found:
        raise SystemExit(f"{folder} holds no {label}-N run folders (bench_code_watch.py --keep {folder} writes them)")
    return found


def without_code(snapshot: dict) -> dict:
    """The snapshot less what the watch adds: its ``code`` table and each stamp's ``code`` id."""
    copy = json.loads(json.dumps(snapshot))
    copy.pop("code", None)
    for case in copy["cases"]:
        for stamp in case.get("measured", {}).values():
            stamp.pop("code", None)
    return copy


def written_bytes(data: dict) -> int:
    from sphinx_kexport.snapshot.files import dumps

    return len(dumps(data).encode())


def statuses(snapshot: dict) -> dict:
    return {(c["name"], d, p): r["status"] for c in snapshot["cases"] for d, paths in c["results"].items()
            for p, r in paths.items()}


def sampled_names(snapshot: Path, every: int) -> list[str]:
    """Every ``every``-th case name of the snapshot, each of which ``--only`` matches alone."""
    names = [case["name"] for case in json.loads(snapshot.read_text())["cases"]]
    ordered = sorted(names)  # a name that begins others sorts just before the first of them
    begins_another = {a for a, b in zip(ordered, ordered[1:]) if b.startswith(a)}
    picked, index = [], 0
    while index < len(names):
        while index < len(names) and names[index] in begins_another:
            index += 1
        if index < len(names):
            picked.append(names[index])
        index += every
    return picked


def ratio_interval(on: list[float], off: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95 % bootstrap interval of sum(on) / sum(off), the cases drawn again with replacement: how far a
    sample's ratio may be from the whole survey's."""
    import random

    draw = random.Random(0)
    ratios = sorted(sum(on[i] for i in picks) / (sum(off[i] for i in picks) or 1)
                    for picks in ([draw.randrange(len(on)) for _ in on] for _ in range(rounds)))
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def report(runs: dict[str, list[dict]], extrapolate: int) -> None:
    cases = sorted(set.intersection(*(set(r["case_seconds"]) for rs in runs.values() for r in rs)))
    median_case = {label: {c: statistics.median(r["case_seconds"][c] for r in rs) for c in cases}
                   for label, rs in runs.items()}
    rows = [("watch", "runs", "wall (s)", "case seconds, sum", "case seconds, median", "probe's process",
             "largest descendant", "largest worker")]
    summary = {}
    for label, rs in runs.items():
        wall = statistics.median(r["seconds"] for r in rs)
        total = statistics.median(sum(r["case_seconds"][c] for c in cases) for r in rs)
        per_case = statistics.median(median_case[label].values())
        parent = statistics.median(r["parent_kb"] for r in rs)
        child = statistics.median(r["child_kb"] for r in rs)
        worker = statistics.median(r["worker_kb"] for r in rs)
        summary[label] = (wall, total, parent, child, worker)
        rows.append((label, str(len(rs)), f"{wall:.1f}", f"{total:.1f}", f"{per_case:.2f}", gib(parent),
                     gib(child), gib(worker)))
    on, off = summary["on"], summary["off"]
    paired = statistics.median(median_case["on"][c] / median_case["off"][c] for c in cases
                               if median_case["off"][c] > 0)
    ratios = [f"{a / b:.3f}" if b else "—" for a, b in zip(on, off)]
    low, high = ratio_interval([median_case["on"][c] for c in cases], [median_case["off"][c] for c in cases])
    rows.append(("on / off", "", *ratios[:2], f"{paired:.3f} (paired)", *ratios[2:]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print(f"\n{len(cases)} cases, --fresh each run, medians; case seconds on / off, 95 % interval over "
          f"the cases (bootstrap): {low:.3f} to {high:.3f}\n")
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))
    for label, rs in runs.items():  # the tracer sees Python of the library's: building a case is most of it
        steps = {step: statistics.median(r["steps"].get(step, 0) for r in rs) for step in rs[0]["steps"]}
        print(f"step seconds, watch {label}: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(steps.items())))
    # a step that runs into the time limit takes the limit, watched or not: the ratio without those cases is
    # what the watch costs the rest (one such case can be half a sample's seconds)
    limited = {f"{c['name']} [{d}]" for r in (*runs["on"], *runs["off"]) for c in r["snapshot"]["cases"]
               for d, paths in c["results"].items() if any(x["status"] == "timeout" for x in paths.values())}
    rest = [c for c in cases if c not in limited]
    if limited and rest:
        on_rest, off_rest = [median_case["on"][c] for c in rest], [median_case["off"][c] for c in rest]
        low, high = ratio_interval(on_rest, off_rest)
        print(f"without the {len(limited)} case(s) a step of which ran into the time limit "
              f"({', '.join(sorted(limited))}): {len(rest)} cases, case seconds on {sum(on_rest):.0f}, "
              f"off {sum(off_rest):.0f}, on / off {sum(on_rest) / sum(off_rest):.3f} (95 % interval {low:.3f} "
              f"to {high:.3f})")
    scale = extrapolate / len(cases)  # the sample's sums, scaled up to the whole survey's cases
    print(f"scaled to {extrapolate:,} cases (x{scale:.1f}): worker-hours "
          + ", ".join(f"watch {label} {summary[label][1] * scale / 3600:.2f}" for label in runs)
          + f"; the watch adds {(on[1] - off[1]) * scale / 3600:.2f} worker-hours")
    if limited and rest:  # a time limit is rare: scaling up the sample's one would weigh it ten times over
        scale = extrapolate / len(rest)
        print(f"the cases without a time limit reached, scaled to {extrapolate:,} (x{scale:.1f}): worker-hours "
              f"watch on {sum(on_rest) * scale / 3600:.2f}, off {sum(off_rest) * scale / 3600:.2f}; the watch adds "
              f"{(sum(on_rest) - sum(off_rest)) * scale / 3600:.2f}")

    snapshot = runs["on"][0]["snapshot"]
    with_code, plain = written_bytes(snapshot), written_bytes(without_code(snapshot))
    off_bytes = written_bytes(runs["off"][0]["snapshot"])
    table = unpack(snapshot.get("code"))  # set id -> {ref: digest}
    refs = [len(code) for code in table.values()]
    measured = sum(len(c.get("measured", {})) for c in snapshot["cases"])
    added = with_code - plain
    print(f"\nsnapshot bytes: {with_code:,} with the watch, {plain:,} without its code table and ids "
          f"(the watch-off run wrote {off_bytes:,}); the watch adds {added:,} bytes "
          f"({added / plain * 100:+.1f} %), {added / measured:,.0f} per measured case")
    print(f"code table: {len(table)} sets for {measured} measured cases, {sum(refs):,} refs in them "
          f"(median {statistics.median(refs) if refs else 0:.0f} a set), "
          f"{len((snapshot.get('code') or {}).get('refs', {})):,} distinct (ref, digest) pairs")
    print(f"extrapolated to {extrapolate:,} cases at that rate (an extrapolation: other cases run other code and "
          f"share sets differently): +{added / measured * extrapolate / 1e6:.2f} MB")
    different = [f"{k}: on {v}, off {statuses(runs['off'][0]['snapshot']).get(k)}"
                 for k, v in statuses(snapshot).items() if statuses(runs["off"][0]["snapshot"]).get(k) != v]
    print(f"statuses identical with and without the watch: {'yes' if not different else 'no'}"
          + ("" if not different else "\n  " + "\n  ".join(different)))


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--one-run":
        return one_run(sys.argv[2] == "on", sys.argv[4:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", action="append", help="case modules or folders (required unless --report-from)")
    parser.add_argument("--library", default="")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--sample-from", type=Path, metavar="SNAPSHOT",
                        help="measure every --every-th case of this snapshot's inventory (--only for each)")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--no-dynamic", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--extrapolate", type=int, default=1486, help="cases of the whole survey (kornia: 1,486)")
    parser.add_argument("--keep", metavar="DIR", help="keep the runs' snapshots, stats and logs here")
    parser.add_argument("--report-from", type=Path, metavar="DIR",
                        help="measure nothing: the report of the runs an earlier --keep DIR kept")
    parser.add_argument("--no-warm-up", action="store_true",
                        help="no warm-up run: KEXPORT_DISCOVERY_CACHE and TORCHINDUCTOR_CACHE_DIR name caches an "
                             "earlier run of the same cases filled")
    args = parser.parse_args()
    if args.report_from:
        report({label: kept_runs(args.report_from, label) for label in ("on", "off")}, args.extrapolate)
        return 0
    if not args.cases:
        parser.error("--cases is required (the case modules or folders to survey)")
    if args.sample_from:
        args.only += sampled_names(args.sample_from, args.every)
        print(f"sample: every {args.every}th case of {args.sample_from}: {len(args.only)} cases")
    probe_args = [arg for c in args.cases for arg in ("--cases", c)] + ["--jobs", str(args.jobs)]
    probe_args += ["--library", args.library] if args.library else []
    probe_args += [arg for p in args.only for arg in ("--only", p)] + (["--no-dynamic"] if args.no_dynamic else [])
    print(machine())
    print(f"load average before the runs: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="kexport-watch-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        caches = {name: os.environ.get(name) or str(work / folder) for name, folder in
                  (("KEXPORT_DISCOVERY_CACHE", "discovery"), ("TORCHINDUCTOR_CACHE_DIR", "inductor"))}
        if not args.no_warm_up:
            warm = survey(True, probe_args, work / "warm-up", caches)
            print(f"  warm-up (on): {warm['seconds']:.0f} s", flush=True)
        runs: dict[str, list[dict]] = {"on": [], "off": []}
        for repeat in range(args.repeats):
            for label in ("on", "off")[:: 1 if repeat % 2 == 0 else -1]:
                found = survey(label == "on", probe_args, work / f"{label}-{repeat}", caches)
                runs[label].append(found)
                print(f"  {label} #{repeat + 1}: {found['seconds']:.0f} s, case seconds "
                      f"{sum(found['case_seconds'].values()):.0f}, load {os.getloadavg()[0]:.2f}", flush=True)
        report(runs, args.extrapolate)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
