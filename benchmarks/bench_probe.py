"""Benchmark: the probe with --jobs 2 against a sequential one-process baseline, on the same 30 cases.

    python benchmarks/bench_probe.py [--jobs 2] [--no-dynamic-row]
    python benchmarks/bench_probe.py --only filters --only color   # the dynamic pass's cost on a subset

The baseline does what the probe's static pass does, so the speed-up compares
it with the probe run with --no-dynamic; a third run, the probe as it runs by
default (with the dynamic-batch pass), gives what that pass adds. Every run
starts cold (own inductor cache directory each) and is timed from outside,
process start to exit, imports included. The table gives configurations
(cases) per minute, the speed-up, whether all runs found the same status for
every case and path, and the peak memory of every process. With ``--only``
(a subset: the baseline cannot run one) only the two probe runs are timed,
to measure what the dynamic-batch pass adds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from process_tree import run_counted  # every process of the run, the probe's workers included

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGET_RATIO = 1.5


def timed(command: list[str], cache: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process tree: the probe's parent, its fork server, inventory
    children, workers and inductor's compilers)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), TORCHINDUCTOR_CACHE_DIR=str(cache))
    done, wall, cpu = run_counted(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:3])} ... failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, cpu


def probe_statuses(snapshot: dict) -> dict:
    return {c["name"]: {p: r["status"] for p, r in c["results"]["cpu"].items()} for c in snapshot["cases"]
            if "cpu" in c["results"]}


def dynamic_counts(snapshot: dict) -> str:
    """"ONNX 20 ok / 3 static, ..." over the dynamic-batch results of the snapshot."""
    parts = []
    for path, label in (("onnx", "ONNX"), ("export", "torch.export"), ("compile", "torch.compile")):
        counts: dict[str, int] = {}
        for case in snapshot["cases"]:
            if "cpu" not in case["results"]:  # not selected by --only
                continue
            status = case["results"]["cpu"][path].get("dynamic", {}).get("status")
            if status:
                counts[status] = counts.get(status, 0) + 1
        parts.append(f"{label} " + " / ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return "; ".join(parts)


def differences(reference: dict, found: dict, label: str) -> list[str]:
    return [f"{name} {path}: baseline {reference[name][path]}, {label} {found.get(name, {}).get(path)}"
            for name in reference for path in ("onnx", "export", "compile")
            if reference[name][path] != found.get(name, {}).get(path)]


def worker_peaks(stats: dict) -> str:
    return ", ".join(f"worker {w['slot']}: {w['peak_rss_kb'] / 1024:.0f} MiB" for w in stats["workers"])


def dynamic_cost(probe_command: list[str], jobs: int, load: float) -> int:
    """The probe on a subset, with --no-dynamic and then by default: what the dynamic-batch pass adds."""
    runs = {}
    with tempfile.TemporaryDirectory(prefix="kexport-bench-") as tmp:
        work = Path(tmp)
        for label, flags in (("--no-dynamic", ["--no-dynamic"]), ("default (dynamic batch)", [])):
            out, stats = work / f"{len(runs)}.json", work / f"{len(runs)}-stats.json"
            wall, cpu = timed(probe_command + flags + ["--out", str(out), "--stats", str(stats)],
                              work / f"cache-{len(runs)}")
            snapshot = json.loads(out.read_text())
            runs[label] = (wall, cpu, probe_statuses(snapshot), json.loads(stats.read_text()), snapshot)
    (plain_s, plain_cpu, plain, _, _), (dyn_s, dyn_cpu, dyn, _, snapshot) = runs.values()
    cases = len(plain)
    print(f"{cases} cases x 3 paths, CPU, {os.cpu_count()} cores, load average before the runs {load:.2f}\n")
    rows = [("configuration", "wall (s)", "configs/min", "CPU (s)", "peak RSS per process")]
    for label, (wall, cpu, _, stats, _) in runs.items():
        rows.append((f"probe: --jobs {jobs} {label}", f"{wall:.1f}", f"{cases / wall * 60:.1f}", f"{cpu:.0f}",
                     worker_peaks(stats)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))
    print(f"\ndynamic-batch pass adds {dyn_s - plain_s:+.1f} s wall ({(dyn_s / plain_s - 1) * 100:+.0f} %), "
          f"{dyn_cpu - plain_cpu:+.0f} s CPU ({(dyn_cpu / plain_cpu - 1) * 100:+.0f} %); its results: "
          f"{dynamic_counts(snapshot)}")
    different = differences(plain, dyn, "with the dynamic-batch pass")
    print(f"statuses identical: {'yes' if not different else 'no'}"
          + ("" if not different else "\n  " + "\n  ".join(different)))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-dynamic-row", action="store_true",
                        help="skip the third run (the probe with its default dynamic-batch pass)")
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="probe only these cases (the probe's --only), without the baseline: the dynamic-batch "
                             "pass's cost on a subset")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    load = os.getloadavg()
    baseline_command = [sys.executable, str(HERE / "baseline_sequential.py")]
    probe_command = [sys.executable, "-m", "sphinx_kexport.probe", "--cases", str(HERE / "cases_bench.py"),
                     "--library", "cases_bench", "--jobs", str(args.jobs)]
    if args.only:
        return dynamic_cost(probe_command + [f"--only={p}" for p in args.only], args.jobs, load[0])
    with tempfile.TemporaryDirectory(prefix="kexport-bench-") as tmp:
        work = Path(tmp)
        baseline_out, probe_out, stats_out = work / "baseline.json", work / "probe.json", work / "stats.json"
        baseline_s, baseline_cpu = timed(baseline_command + [str(baseline_out)], work / "cache-baseline")
        probe_s, probe_cpu = timed(probe_command + ["--no-dynamic", "--out", str(probe_out), "--stats",
                                                    str(stats_out)], work / "cache-probe")
        baseline = json.loads(baseline_out.read_text())
        probe = probe_statuses(json.loads(probe_out.read_text()))
        stats = json.loads(stats_out.read_text())
        dynamic = None
        if not args.no_dynamic_row:
            dyn_out, dyn_stats = work / "dynamic.json", work / "dynamic-stats.json"
            dyn_s, dyn_cpu = timed(probe_command + ["--out", str(dyn_out), "--stats", str(dyn_stats)],
                                   work / "cache-dynamic")
            snapshot = json.loads(dyn_out.read_text())
            dynamic = (dyn_s, dyn_cpu, probe_statuses(snapshot), json.loads(dyn_stats.read_text()),
                       dynamic_counts(snapshot))

    cases = len(baseline["statuses"])
    different = differences(baseline["statuses"], probe, "probe")
    rate_baseline, rate_probe = cases / baseline_s * 60, cases / probe_s * 60
    ratio = rate_probe / rate_baseline
    rows = [
        ("configuration", "wall (s)", "configs/min", "CPU (s)", "cores used", "peak RSS per process"),
        ("baseline: 1 process, sequential", f"{baseline_s:.1f}", f"{rate_baseline:.1f}", f"{baseline_cpu:.0f}",
         f"{baseline_cpu / baseline_s:.2f}", f"{baseline['peak_rss_kb'] / 1024:.0f} MiB"),
        (f"probe: --jobs {args.jobs} --no-dynamic", f"{probe_s:.1f}", f"{rate_probe:.1f}", f"{probe_cpu:.0f}",
         f"{probe_cpu / probe_s:.2f}", worker_peaks(stats)),
    ]
    if dynamic:
        dyn_s, dyn_cpu, dyn_statuses, dyn_stats, counts = dynamic
        different += differences(baseline["statuses"], dyn_statuses, "probe with the dynamic-batch pass")
        rows.append((f"probe: --jobs {args.jobs} (dynamic batch)", f"{dyn_s:.1f}", f"{cases / dyn_s * 60:.1f}",
                     f"{dyn_cpu:.0f}", f"{dyn_cpu / dyn_s:.2f}", worker_peaks(dyn_stats)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print(f"{cases} cases x 3 paths, CPU, {os.cpu_count()} cores, load average before the runs {load[0]:.2f}\n")
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))
    verdict = "meets" if ratio >= TARGET_RATIO else "misses"
    print(f"\nspeed-up: {ratio:.2f}x ({verdict} the {TARGET_RATIO}x target); CPU per configuration: baseline "
          f"{baseline_cpu / cases:.2f} s, probe {probe_cpu / cases:.2f} s")
    if dynamic:
        print(f"dynamic-batch pass adds {dyn_s - probe_s:+.1f} s wall ({(dyn_s / probe_s - 1) * 100:+.0f} %), "
              f"{dyn_cpu - probe_cpu:+.0f} s CPU; its results: {counts}")
    print(f"statuses identical: {'yes' if not different else 'no'}"
          + ("" if not different else "\n  " + "\n  ".join(different)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
