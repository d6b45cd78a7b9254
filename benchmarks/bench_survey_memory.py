"""Benchmark: a survey's wall time and peak memory, the parent apart from its children, against an earlier commit.

    python benchmarks/bench_survey_memory.py [--base a8553e2] [--cases example_docs/cases/cases_morphology.py]
        [--only PATTERN ...] [--repeats 2]
    python benchmarks/bench_survey_memory.py --full          # the whole example, this checkout only

Each run is ``python -m sphinx_kexport.probe --fresh`` over the example's case modules (the base
checkout's own copy of them, as a git worktree), its output to a scratch file, with a fresh discovery
cache. A sampler reads ``/proc`` every 0.2 s: the peak resident memory (``VmHWM``) of the probe's own
process, and the largest of its descendants' (inventory children, workers, their compilers). Base and
head alternate ``--repeats`` times; the table gives medians and the head / base ratio. ``--full`` runs
the whole example once with this checkout and compares with the targets: parent at most 1.5 GB, every
worker at most 4 GB, at most 30 minutes; then a rerun with nothing changed (parent at most 1 GB).
The first line names the machine, Python, torch and kornia.
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
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
GB = 1024 * 1024  # KiB per GiB

from sphinx_kexport.probe.base.memory import status_kb  # noqa: E402


def _children(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/task/{current}/children", encoding="ascii") as handle:
                kids = [int(k) for k in handle.read().split()]
        except OSError:
            kids = []
        found += kids
        todo += kids
    return found


def run_sampled(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> dict[str, float]:
    """Run ``command``; its wall seconds, exit status and the peak KiB of the process and of its largest descendant."""
    peaks = {"parent": 0, "child": 0}
    began = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peaks["parent"] = max(peaks["parent"], status_kb("VmHWM", process.pid))
                for child in _children(process.pid):
                    peaks["child"] = max(peaks["child"], status_kb("VmHWM", child))
                done.wait(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        status = process.wait()
        done.set()
        sampler.join()
    return {"seconds": time.monotonic() - began, "status": status, "parent_kb": peaks["parent"],
            "child_kb": peaks["child"]}


def probe_command(checkout: Path, out: Path, only: list[str], fresh: bool, stats: Path | None,
                  cases: list[str] = ()) -> list[str]:
    command = [sys.executable, "-m", "sphinx_kexport.probe", "--config", str(checkout / "pyproject.toml"),
               "--out", str(out), "--jobs", "2"]
    command += [arg for entry in cases for arg in ("--cases", str(checkout / entry))]
    command += ["--fresh"] if fresh else []
    command += [arg for pattern in only for arg in ("--only", pattern)]
    return command + (["--stats", str(stats)] if stats else [])


def environment(checkout: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(checkout), KEXPORT_DISCOVERY_CACHE=str(cache), PYTHONUNBUFFERED="1")
    env.pop("PYTHONSAFEPATH", None)
    return env


def machine() -> str:
    import importlib.metadata

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    memory = int(open("/proc/meminfo").readline().split()[1]) / GB
    return (f"{os.cpu_count()} CPUs ({cpu}), {memory:.0f} GiB, Python {platform.python_version()}, "
            f"torch {importlib.metadata.version('torch')}, kornia {importlib.metadata.version('kornia')}")


def gib(kb: float) -> str:
    return f"{kb / GB:.2f} GiB"


def compare(base: str, only: list[str], cases: list[str], repeats: int, scratch: Path) -> None:
    base_tree = scratch / "base"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base_tree), base], check=True,
                   capture_output=True)
    try:
        rows: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
        for repeat in range(repeats):
            for label, checkout in (("base", base_tree), ("head", REPO))[:: 1 if repeat % 2 == 0 else -1]:
                run = scratch / f"{label}-{repeat}"
                run.mkdir()
                found = run_sampled(probe_command(checkout, run / "snapshot.json", only, True, None, cases), checkout,
                                    environment(checkout, run / "cache"), run / "log.txt")
                rows[label].append(found)
                print(f"  {label} #{repeat + 1}: {found['seconds']:.0f} s, parent {gib(found['parent_kb'])}, "
                      f"largest child {gib(found['child_kb'])}, exit {found['status']}", flush=True)
        what = " ".join(cases + only) or "the whole example"
        print(f"\nsurvey of {what}, --fresh --jobs 2, medians of {repeats}:")
        print(f"{'':22}{'base ' + base:>16}{'head':>16}{'head / base':>14}")
        for key, label, show in (("seconds", "wall", lambda v: f"{v:.0f} s"), ("parent_kb", "parent peak", gib),
                                 ("child_kb", "largest child peak", gib)):
            old = statistics.median(r[key] for r in rows["base"])
            new = statistics.median(r[key] for r in rows["head"])
            print(f"{label:22}{show(old):>16}{show(new):>16}{new / old if old else float('nan'):>14.3f}")
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)], check=False)


def full(scratch: Path) -> None:
    out, cache = scratch / "snapshot.json", scratch / "cache"
    rows = []
    for label, fresh in (("full refresh (--fresh)", True), ("rerun, nothing changed", False)):
        stats = scratch / f"stats-{len(rows)}.json"
        found = run_sampled(probe_command(REPO, out, [], fresh, stats), REPO, environment(REPO, cache),
                            scratch / f"log-{len(rows)}.txt")
        data = json.loads(stats.read_text()) if stats.exists() else {}
        workers = max((w["peak_rss_kb"] for w in data.get("workers", [])), default=0)
        inventory = max((m["peak_rss_kb"] for m in data.get("inventory", {}).get("modules", [])), default=0)
        rows.append((label, found, data, workers, inventory))
        print(f"  {label}: {found['seconds']:.0f} s, exit {found['status']}", flush=True)
    print(f"\nthe whole example ({scratch}), --jobs 2:")
    print(f"{'':26}{'wall':>10}{'parent':>12}{'workers':>12}{'inventory':>12}{'measured':>10}{'reused':>8}")
    for label, found, data, workers, inventory in rows:
        print(f"{label:26}{found['seconds'] / 60:>8.1f} m{gib(found['parent_kb']):>12}{gib(workers):>12}"
              f"{gib(inventory):>12}{data.get('measured', 0):>10}{data.get('reused_snapshot', 0):>8}")
    print("targets: full refresh <= 30 min, parent <= 1.5 GiB, every worker <= 4 GiB; rerun parent <= 1 GiB")
    top = sorted(rows[0][2].get("case_peak_rss_kb", {}).items(), key=lambda kv: -kv[1])[:8]
    print("largest cases (worker peak while measuring each): " + ", ".join(f"{k} {gib(v)}" for k, v in top))
    print(f"recycled workers: {rows[0][2].get('workers_recycled', 0)}")
    steps = rows[0][2].get("step_seconds", {})
    total = sum(steps.values()) or 1.0
    print("where the workers' time went (s, share): " + ", ".join(
        f"{step} {seconds:.0f} ({seconds / total:.0%})" for step, seconds in steps.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="a8553e2", help="the commit to compare with (default: before the pipeline)")
    parser.add_argument("--only", action="append", default=[], metavar="PATTERN",
                        help="the probe's --only (repeatable)")
    parser.add_argument("--cases", action="append", default=[], metavar="FILE",
                        help="case modules of the example, relative to the checkout (repeatable); default "
                             "example_docs/cases/cases_morphology.py")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="the whole example with this checkout, against the targets")
    parser.add_argument("--scratch", type=Path, help="keep the runs' files here (default: a temporary directory)")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="kexport-memory-"))
    scratch.mkdir(parents=True, exist_ok=True)
    print(machine(), flush=True)
    if args.full:
        full(scratch)
    else:
        compare(args.base, args.only, args.cases or ["example_docs/cases/cases_morphology.py"], args.repeats, scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
