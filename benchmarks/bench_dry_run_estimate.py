"""Benchmark: how close ``probe --dry-run``'s estimate of worker-seconds comes to what the run then takes.

    PYTHONPATH=. python benchmarks/bench_dry_run_estimate.py [--repeats 3] [--caches cold warm warm-speed]
        [--keep DIR]

Each repeat copies ``tests/probe/probe_cases/gateproject`` (five operators; three share the helper
``gatelib/_common.py::normalize``) into a scratch folder and runs the probe there as a maintainer's CI
would, each step a real ``python -m sphinx_kexport.probe`` process with the project's own settings
(``jobs = 2``): a survey; then a change in the shared helper's numbers (``EPS``), so that the three cases that
run it are measured again; then ``--dry-run --stats`` (its estimate, as data); then the rerun with
``--stats`` (the worker-seconds it took: the sum of its ``case_seconds``). Scenarios (``--caches``):
``cold``, every repeat's survey starts with an empty inductor cache (a first survey); ``warm``, the repeats
share one inductor cache that an untimed survey filled first (a CI job that keeps its caches);
``warm-speed``, warm, and the survey measured with ``--speed`` as the kornia example was, so that the rerun
times the speed pass too (the snapshot holds figures). The discovery cache is shared throughout (discovery
is not what is estimated). The script checks that the estimate is the sum of the seconds the survey's
snapshot recorded for the cases the rerun measured, and that the dry run named exactly those.

Per repeat it prints the estimate, the rerun's worker-seconds and their ratio, and each case's recorded
seconds beside what the rerun took; then the median ratio per scenario, and in how many repeats the estimate
was within a third of the run (``|estimate - actual| <= actual / 3``); with both warm scenarios, the median
estimate of the timed snapshot against the median plain rerun: what the kornia gate saw, a rerun that did
not time the cases its snapshot had timed (before the probe kept the figures). The first line names the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_survey_memory import machine

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "gateproject"
HELPER = Path("gatelib") / "_common.py"
# cold: each repeat's survey starts with an empty inductor cache (a first survey); warm: the repeats share
# one that an untimed survey filled (a CI job that keeps its caches); warm-speed: warm, the survey with --speed
# (as the kornia example was measured), so that the rerun times the speed pass too
SCENARIOS = ("cold", "warm", "warm-speed")
CHANGE = ("EPS = 1e-6", "EPS = 1e-5")  # the helper's numbers: every case that runs it is measured again


def probe(where: Path, env: dict[str, str], *args: str) -> None:
    command = [sys.executable, "-m", "sphinx_kexport.probe", *args]
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    (where / "log.txt").open("a").write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args) or 'the survey'} failed in {where} ({done.returncode}); see log.txt")


def one_repeat(where: Path, caches: dict[str, str], speed: bool = False) -> dict:
    shutil.copytree(PROJECT, where)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(where), str(REPO)]), PYTHONUNBUFFERED="1", **caches)
    probe(where, env, "--stats", "survey.json", *(["--speed"] if speed else []))
    recorded = {f"{c['name']} [{device}]": stamp.get("seconds")
                for c in json.loads((where / "support.json").read_text())["cases"]
                for device, stamp in c.get("measured", {}).items()}
    helper = where / HELPER
    helper.write_text(helper.read_text().replace(*CHANGE))
    probe(where, env, "--dry-run", "--stats", "dry.json")
    probe(where, env, "--stats", "rerun.json")
    dry, rerun = json.loads((where / "dry.json").read_text()), json.loads((where / "rerun.json").read_text())
    measured = rerun["case_seconds"]
    if sorted(measured) != sorted(dry["would_measure"]):
        raise SystemExit(f"the rerun measured {sorted(measured)}, the dry run named {dry['would_measure']}")
    if dry["estimated_worker_seconds"] != round(sum(recorded[name] or 0.0 for name in measured), 1):
        raise SystemExit(f"the estimate {dry['estimated_worker_seconds']} is not the sum of the recorded seconds "
                         f"{ {name: recorded[name] for name in measured} }")
    return {"estimate": dry["estimated_worker_seconds"], "actual": sum(measured.values()),
            "cases": {name: (recorded[name], measured[name]) for name in measured}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--caches", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--keep", type=Path, help="keep each repeat's folder here (logs, stats, snapshots)")
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bench-dry-run-"))
    scratch.mkdir(parents=True, exist_ok=True)
    print(machine())
    discovery = str(scratch / "discovery-cache")
    summary: list[str] = []
    medians: dict[str, dict[str, float]] = {}
    shared = scratch / "inductor-shared"
    for state in args.caches:
        if state != "cold" and not shared.exists():  # an untimed survey fills the cache the repeats then share
            one_repeat(scratch / "warm-up", {"KEXPORT_DISCOVERY_CACHE": discovery,
                                             "TORCHINDUCTOR_CACHE_DIR": str(shared)}, speed=True)
        rows = []
        for repeat in range(args.repeats):
            inductor = scratch / f"inductor-cold-{repeat}" if state == "cold" else shared
            row = one_repeat(scratch / f"{state}-{repeat}", {"KEXPORT_DISCOVERY_CACHE": discovery,
                                                              "TORCHINDUCTOR_CACHE_DIR": str(inductor)},
                             speed=state == "warm-speed")
            rows.append(row)
            per_case = ", ".join(f"{name} {was:.1f} -> {now:.1f} s" for name, (was, now) in row["cases"].items())
            print(f"{state} {repeat}: estimate {row['estimate']:.1f} s, run {row['actual']:.1f} s, ratio "
                  f"{row['estimate'] / row['actual']:.2f}; recorded -> rerun: {per_case}")
        medians[state] = {key: statistics.median(r[key] for r in rows) for key in ("estimate", "actual")}
        ratio = statistics.median(r["estimate"] / r["actual"] for r in rows)
        within = sum(abs(r["estimate"] - r["actual"]) <= r["actual"] / 3 for r in rows)
        summary.append(f"{state}: median ratio estimate / run {ratio:.2f}; within a third in {within} of "
                       f"{len(rows)}")
    if {"warm", "warm-speed"} <= set(medians):  # what the kornia gate did: a rerun that did not time the cases
        summary.append(f"a timed snapshot's estimate against a rerun without the speed pass (the probe before it "
                       f"kept the figures): {medians['warm-speed']['estimate']:.1f} s / "
                       f"{medians['warm']['actual']:.1f} s = "
                       f"{medians['warm-speed']['estimate'] / medians['warm']['actual']:.2f}")
    print("\n".join(summary))
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
