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
times the speed pass too (the snapshot holds figures); its line also gives the ratio against the rerun less
its speed steps (``*:speed`` in ``step_seconds``), which is what a rerun took before the probe kept a timed
snapshot's figures. The discovery cache is shared throughout (discovery is not what is estimated).

Per repeat it prints the estimate, the rerun's worker-seconds and their ratio, and each case's recorded
seconds beside what the rerun took; then the median ratio per scenario, and in how many repeats the estimate
was within a third of the run (``|estimate - actual| <= actual / 3``). The first line names the machine.
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
    # the speed pass's own steps: what the rerun would have taken without it (a rerun before the probe kept a
    # timed snapshot's figures, which is how the kornia gate ran)
    timing = sum(seconds for step, seconds in rerun["step_seconds"].items() if step.endswith(":speed"))
    return {"estimate": dry["estimated_worker_seconds"], "actual": sum(measured.values()),
            "recorded": sum(recorded[name] or 0.0 for name in measured), "timing": timing,
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
    summary = []
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
            without = (f"; without the speed pass the run took {row['actual'] - row['timing']:.1f} s, ratio "
                       f"{row['estimate'] / (row['actual'] - row['timing']):.2f}") if row["timing"] else ""
            print(f"{state} {repeat}: estimate {row['estimate']:.1f} s (the recorded seconds: "
                  f"{row['recorded']:.1f} s), run {row['actual']:.1f} s, ratio {row['estimate'] / row['actual']:.2f}"
                  f"{without}; recorded -> rerun: {per_case}")
        ratio = statistics.median(r["estimate"] / r["actual"] for r in rows)
        within = sum(abs(r["estimate"] - r["actual"]) <= r["actual"] / 3 for r in rows)
        line = f"{state}: median ratio estimate / run {ratio:.2f}; within a third in {within} of {len(rows)}"
        if any(r["timing"] for r in rows):
            line += (f"; against the run without the speed pass "
                     f"{statistics.median(r['estimate'] / (r['actual'] - r['timing']) for r in rows):.2f}")
        summary.append(line)
    print("\n".join(summary))
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
