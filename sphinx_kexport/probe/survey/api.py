"""``run_survey(config)``: a whole survey in-process, the way ``python -m sphinx_kexport.probe`` runs it.

The stages, each owned by one folder of the probe:

1. **inventory** (``run/inventory.py``, ``cases/``, ``discover/``): child processes import the case
   modules, run or load the docstring examples, and describe every case as plain data;
2. **plan** (``survey/plan.py``, ``survey/reuse.py``): per case and device, measure it, reuse a result
   (the interrupted run's records, then the snapshot), or record its skip;
3. **measure** (``run/pool.py``, ``run/worker.py``, ``measure/``): worker processes build each case
   alone and measure it; a record is written the moment a case ends;
4. **assemble** (``survey/assemble.py``): the snapshot, with what this run did not measure carried over.

This process (the parent) never imports torch or a case module: it holds the inventory only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, TextIO

from ...snapshot import SnapshotError, dump_snapshot, read_snapshot
from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import PATHS
from ..cases.fingerprint import reusable_keys
from ..cases.inventory import InventoryCase, LoadError
from ..cases.loader import resolve_sources
from ..measure.environment import library_info, tool_versions
from ..measure.locate import NO_LIBRARY, library_root
from ..run.inventory import Inventory, build_inventory
from ..run.memory import peak_rss_kb
from ..run.pool import Runner, Task, ToolError
from ..run.progress import Progress, eager_summary
from ..run.settings import WorkerSettings
from ..run.workdir import WorkDir, work_dir_for
from .assemble import build_snapshot
from .config import ProbeConfig
from .plan import plan_survey
from .reuse import reusable_results
from .select import matches, pick_library


class SurveyError(Exception):
    """A mistake in the settings or the case modules; the message says what to fix. Nothing was measured."""


@dataclass
class SurveyCounts:
    measured: int = 0  # (case, device) cells measured by this run
    reused_snapshot: int = 0  # unchanged since the snapshot
    reused_work: int = 0  # from the records of an interrupted run
    skipped: int = 0  # skip= cases
    failed_eagerly: int = 0  # probed cases that did not run eagerly (a problem with the case or the environment)


@dataclass
class SurveyResult:
    snapshot: dict[str, Any]
    written: bool  # False when a rerun measured nothing and changed nothing: the file was left as it was
    out: Path
    counts: SurveyCounts
    notes: list[str] = field(default_factory=list)  # for people: what was carried over or dropped
    eager_failures: list[str] = field(default_factory=list)  # lines naming each case that failed eagerly
    stats: dict[str, Any] = field(default_factory=dict)  # timings and peak memory (what --stats writes)


def run_survey(config: ProbeConfig, *, stream: TextIO | None = None) -> SurveyResult:
    """Run the survey ``config`` describes and write its snapshot; progress goes to ``stream`` (stdout).

    Raises SurveyError for a mistake the user can fix (nothing was measured), ToolError when the probe itself
    could not run (finished cases are kept in the work directory: run again to resume), KeyboardInterrupt
    likewise."""
    out = stream or sys.stdout
    began = time.monotonic()
    try:
        sources = resolve_sources(config.cases, config.root)
    except LoadError as exc:
        raise SurveyError(f"{exc}\nNothing was run.") from None
    with case_search_path(sources):  # where the children, the workers and the library lookup find the modules
        return _survey(config, sources, out, began)


@contextlib.contextmanager
def case_search_path(sources: list[Any]) -> Iterator[None]:
    """``sys.path`` with the case modules' folders in front (as importing them would put them), for the
    duration of the survey; the caller's ``sys.path`` is given back afterwards."""
    saved = list(sys.path)
    for entry in reversed([s.path_entry for s in sources if s.path_entry]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path[:] = saved


def _survey(config: ProbeConfig, sources: list[Any], out: TextIO, began: float) -> SurveyResult:
    def say(line: str) -> None:
        print(line, file=out, flush=True)

    library = config.library
    if library and library_root(library) is NO_LIBRARY:
        raise SurveyError(f"library {library!r} (set by `library` or --library) cannot be imported; install it, or "
                          "fix the import name. Nothing was run.")
    jobs_for_modules = max(1, min(config.jobs, len(sources)))
    say(f"building the cases of {len(sources)} case module{'s' if len(sources) != 1 else ''} in "
        f"{jobs_for_modules} child process{'es' if jobs_for_modules != 1 else ''}"
        + (" (running the docstring examples again: --fresh)" if config.fresh else ""))
    try:
        inventory = build_inventory(sources, jobs=config.jobs, fresh=config.fresh, devices=config.devices,
                                    opset=config.opset, on_line=say)
    except LoadError as exc:
        raise SurveyError(f"{exc}\nNothing was run.") from None
    if inventory.repeats:
        shown = ", ".join(f"{d.name} (= {h.name})" for d, h in inventory.repeats[:5]) + (
            ", ..." if len(inventory.repeats) > 5 else "")
        say(f"note: {len(inventory.repeats)} docstring case(s) repeat a hand-written case and are not probed: {shown}")
    if "cuda" in config.devices and not inventory.cuda_available:
        raise SurveyError(f"--device cuda: this machine has no usable CUDA device (torch {inventory.torch_version} "
                          "sees no GPU). Probe cuda on a GPU machine and merge, or drop cuda from `devices`. "
                          "Nothing was written.")
    library = library or pick_library(inventory.cases)
    root = library_root(library)
    selected = _select(config, inventory.cases, say)
    info = library_info(library, root.directory if root is not NO_LIBRARY else "")
    return _measure_and_write(config, sources, inventory, selected, info, tool_versions(), root.name, out, began)


def _select(config: ProbeConfig, cases: list[InventoryCase], say: Any) -> list[InventoryCase]:
    selected = [c for c in cases if not config.only or any(matches(c.name, c.package, p) for p in config.only)]
    if not selected:
        raise SurveyError(f"no case matches --only {' '.join(config.only)} (the case modules register {len(cases)} "
                          "cases). Nothing was run.")
    if config.shard:
        chosen = {c.name for c in selected}
        matching = len(selected)
        selected = [c for i, c in enumerate(cases) if config.shard.selects(i) and c.name in chosen]
        if not selected:  # not a mistake: a CI matrix has more shards than this selection has cases
            which = f"of the {matching} cases matching --only {' '.join(config.only)}" if config.only else \
                f"of the {len(cases)} cases"
            say(f"shard {config.shard} holds none {which}; writing an empty part for `merge`")
    return selected


def _previous_snapshot(path: Path, notes: list[str]) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        return read_snapshot(path)[0]
    except SnapshotError as exc:
        notes.append(f"the existing {path.name} cannot be read, so none of its results are kept ({exc})")
        return None


def _cache(config: ProbeConfig, previous: dict[str, Any] | None, notes: list[str]) -> dict[str, Any] | None:
    """The snapshot whose results may be reused: none with --fresh; a shard's own earlier part, else the
    project's snapshot."""
    if config.fresh:
        return None
    if not config.shard:
        return previous
    for path in (config.out, config.base_out):
        if path is not None and path.exists():
            return _previous_snapshot(path, notes)
    return None


def _measure_and_write(config: ProbeConfig, sources: list[Any], inventory: Inventory, selected: list[InventoryCase],
                       info: dict[str, str], tools: dict[str, str], library: str, out: TextIO,
                       began: float) -> SurveyResult:
    def say(line: str) -> None:
        print(line, file=out, flush=True)

    work = WorkDir(work_dir_for(config.out))
    if config.fresh:
        work.remove()
    notes: list[str] = []
    previous = None if config.shard else _previous_snapshot(config.out, notes)
    cache = _cache(config, previous, notes)
    reusable = {device: reusable_results(cache, device, tools, config.opset, info["version"])
                for device in config.devices}
    plan = plan_survey(selected, config.devices,
                       lambda case, device: reusable_keys(case.definition, device, config.opset, info["version"],
                                                          tools, config.dynamic),
                       work, reusable)
    jobs = min(config.jobs, max(1, len(plan.tasks)))
    progress = Progress(plan.total, stream=out)
    where = f" (shard {config.shard})" if config.shard else ""
    say(f"probing {len(selected)} of {len(inventory.cases)} cases on {', '.join(config.devices)}{where} with "
        f"{jobs} worker(s); records in {work.path}")
    progress.resumed(len(plan.resumed), plan.resumed)
    progress.reused(len(plan.cached), plan.cached, config.out.name if not config.shard else "the snapshot")
    for case, device in plan.skips:
        progress.finished(case.name, device, plan.measured[(case.name, device)], 0.0, measured=False)

    measured, stamps = dict(plan.measured), dict(plan.stamps)
    seconds: dict[str, float] = {}
    case_memory: dict[str, int] = {}

    def finished(task: Task) -> None:
        results = {path: task.results[path] for path in PATHS}
        measured[(task.name, task.device)] = results
        stamps[(task.name, task.device)] = {"fingerprint": task.fingerprint, "measured_at": utc_now()}
        seconds[f"{task.name} [{task.device}]"] = round(task.seconds, 3)
        case_memory[f"{task.name} [{task.device}]"] = task.peak_rss_kb
        progress.finished(task.name, task.device, results, task.seconds)

    settings = WorkerSettings(sys_path=list(sys.path), sources=list(sources), library=library, opset=config.opset,
                              dynamic=config.dynamic, threads=max(1, (os.cpu_count() or 1) // jobs))
    runner = Runner(work=work, settings=settings, jobs=jobs, timeout=config.timeout, root=library_root(library),
                    on_start=lambda t: progress.started(t.name, t.device), on_finish=finished, on_note=progress.note)
    measuring = time.monotonic()
    try:
        try:
            if plan.tasks:
                work.path.mkdir(parents=True, exist_ok=True)
                runner.run(plan.tasks)
        except ToolError as exc:
            raise ToolError(f"{exc}\nFinished cases are kept in {work.path}; rerun to resume.") from None
        finally:
            progress.close()
        environments = {}
        for device in config.devices:
            # written by a worker of this run, or of the interrupted run whose records were reused
            env = work.environment(device)
            if env is None or env.get("opset") != config.opset or env.get("torch") != inventory.torch_version:
                env = inventory.environments[device]  # no worker ran: every case was reused or skipped
            environments[device] = env
        try:
            snapshot, more = build_snapshot(cases=inventory.cases, measured=measured, environments=environments,
                                            library=info, previous=previous, stamps=stamps)
        except SnapshotError as exc:  # a bug in the probe, not in the user's cases
            raise ToolError(f"the snapshot does not validate, not writing it: {exc}") from None
        notes += more
        written = bool(plan.tasks) or bool(plan.resumed) or previous is None or _timeless(snapshot) != _timeless(previous)
        if written:
            try:
                dump_snapshot(snapshot, config.out)
            except SnapshotError as exc:  # a bug in the probe, not in the user's cases
                raise ToolError(f"the snapshot does not validate, not writing it: {exc}") from None
        else:  # a rerun that measured nothing leaves the committed file as it was, not a diff of timestamps
            snapshot = previous
    finally:
        runner.close()  # the workers were told to stop; they exited while the snapshot was assembled
    if not config.keep_work:
        work.remove()
    probed = {case.name for case in selected}
    eager = eager_summary([c for c in snapshot["cases"] if c["name"] in probed], config.devices)
    counts = SurveyCounts(measured=len(plan.tasks), reused_snapshot=len(plan.cached), reused_work=len(plan.resumed),
                          skipped=len(plan.skips), failed_eagerly=sum(1 for line in eager[1:]))
    stats = {
        "wall_seconds": round(time.monotonic() - began, 3),
        "measure_seconds": round(time.monotonic() - measuring, 3),
        "measured": counts.measured, "reused": counts.reused_work, "reused_snapshot": counts.reused_snapshot,
        "skipped": counts.skipped, "jobs": jobs,
        "parent_peak_rss_kb": peak_rss_kb(),
        "inventory": {"modules": [vars(m) for m in inventory.modules]},
        "workers": runner.worker_peaks(), "workers_recycled": runner.recycled,
        "case_seconds": seconds, "case_peak_rss_kb": case_memory,
    }
    if config.stats:
        config.stats.parent.mkdir(parents=True, exist_ok=True)
        config.stats.write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return SurveyResult(snapshot=snapshot, written=written, out=config.out, counts=counts, notes=notes,
                        eager_failures=eager, stats=stats)


def _timeless(snapshot: dict[str, Any]) -> str:
    """The snapshot without the times a run stamps even when it measures nothing (when it was written,
    when each environment was probed, when each skip entry was recorded)."""
    copy = json.loads(json.dumps(snapshot))
    copy.pop("generated_at", None)
    for env in copy.get("environments", {}).values():
        if isinstance(env, dict):
            env.pop("probed_at", None)
    for case in copy.get("cases", []):
        for stamp in (case.get("measured") or {}).values():
            if isinstance(stamp, dict):
                stamp.pop("measured_at", None)
    return json.dumps(copy, sort_keys=True)


__all__ = ["SurveyCounts", "SurveyError", "SurveyResult", "ToolError", "run_survey"]
