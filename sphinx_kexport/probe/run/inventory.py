"""Build the inventory in child processes: the parent of a survey never imports a case module.

Each case module is imported in a fresh child process (``jobs`` at a time),
which builds its cases (running the docstring examples it asks for, or loading
them from the discovery cache), describes each one as an
:class:`~..cases.inventory.InventoryCase` and exits, so the memory the examples
and inputs took goes back to the system with it. The first module's child also
reads the environment (torch's version, the devices). The parent joins the
modules' descriptions in the order of ``cases`` (:func:`~..cases.inventory.join_inventory`).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

from ..base.code_digest import CodePlaces

from ..cases.inventory import InventoryCase, LoadError, Source, TorchLacks, join_inventory
from ..base.lifetime import die_with_parent
from ..base.memory import peak_rss_kb
from .parent_state import ParentState
from ..base.errors import ToolError
from ...snapshot.vocabulary import CUDA
from .settings import limit_threads, thread_share
from .warm_start import worker_context

BuildWatchPlaces = tuple[CodePlaces, list[str]]  # where the code is whose building of each case is watched


@dataclass
class ModuleReport:
    """How building one module's cases went, for progress and ``--stats``."""

    label: str
    cases: int
    seconds: float
    peak_rss_kb: int
    skipped: str = ""  # why the module was skipped under this torch (cases.inventory.TorchLacks), else ""


@dataclass
class Inventory:
    cases: list[InventoryCase]
    repeats: list[tuple[InventoryCase, InventoryCase]]  # (discovered, the hand-written case it repeats)
    torch_version: str
    cuda_available: bool
    environments: dict[str, dict[str, Any]]  # device -> the snapshot header entry, read in a child
    modules: list[ModuleReport] = field(default_factory=list)
    # objects whose docstring example yielded no case, with why (the snapshot's objects_without_cases)
    objects_without_cases: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ModuleDescribed:
    """What a child gives back for the module it described."""

    cases: list[InventoryCase]
    environment: dict[str, Any] | None  # read by the first module's child only
    seconds: float
    peak_rss_kb: int
    objects_without_cases: list[dict[str, Any]]
    skipped: str  # why the module was skipped under this torch, else ""


@dataclass(frozen=True)
class ModuleMistake:
    """A mistake in the module (a LoadError in the child): the parent raises it for the module's author."""

    why: str


def describe_in_child(source: Source, sys_path: list[str], parent: ParentState, rediscover: bool, jobs: int,
                      environment: tuple[list[str], int] | None = None, suite_jobs: int = 1,
                      watch: BuildWatchPlaces | None = None) -> ModuleDescribed | ModuleMistake:
    """A child's whole life: import one case module and describe its cases (and, for the first module, read the
    environment of ``(devices, opset)``). ``suite_jobs``: shards of a library's tests run at once by its
    ``cases_from_tests`` (its share of the run's jobs). ``watch``: where the library's and the project's code
    is, to record what building each hand-written case ran (None: not recorded)."""
    began = time.monotonic()
    parent.adopt()
    sys.path[:] = sys_path
    limit_threads(thread_share(jobs))
    from ..discover.cache import refresh
    from ..discover.progress import report_examples, to_stderr
    from ..discover.suite.suite_shards import set_suite_jobs
    from ..discover.docstrings.without_cases import taken

    refresh(rediscover)
    set_suite_jobs(suite_jobs)
    report_examples(to_stderr(f"    {source.label} "))  # examples that run (not from the cache): a line each
    skipped = ""
    try:
        cases = _described(source, watch)
    except TorchLacks as exc:  # not a mistake: the module is for a newer torch; the run goes on without it
        cases, skipped = [], str(exc)
    except LoadError as exc:
        return ModuleMistake(str(exc))
    env = _environment(*environment) if environment else None
    return ModuleDescribed(cases, env, time.monotonic() - began, peak_rss_kb(), taken(), skipped)


def _described(source: Source, watch: BuildWatchPlaces | None) -> list[InventoryCase]:
    from ..cases.describe import describe_module

    if watch is None:
        return describe_module(source)
    from ..measure.build_watch import BuildWatch

    builds = BuildWatch(*watch)
    cases = describe_module(source, importing=builds)
    return [dataclasses.replace(case, build_code=builds.code_of(case.local_name))
            if not case.discovered and not case.skip else case for case in cases]


def _environment(devices: list[str], opset: int) -> dict[str, Any]:
    import torch

    from ..measure.environment import device_environment

    cuda = bool(torch.cuda.is_available())
    envs = {device: device_environment(device, opset) for device in devices if device != CUDA or cuda}
    return {"torch": str(torch.__version__), "cuda": cuda, "environments": envs}


def build_inventory(sources: list[Source], *, jobs: int, rediscover: bool, devices: list[str], opset: int,
                    on_line: Callable[[str], None] = lambda line: None,
                    on_module: Callable[[Source, list[InventoryCase]], None] = lambda source, cases: None,
                    started: Callable[[Callable[[], None]], None] = lambda stop: None,
                    parent: ParentState | None = None, watch: BuildWatchPlaces | None = None) -> Inventory:
    """The joined inventory of ``sources``; LoadError for a mistake in a case module, ToolError when a child dies.
    ``parent``: the environment the children adopt (default: this process's, now); ``watch``: (places, folders)
    of the code whose building of each hand-written case is recorded (None: not recorded)."""
    run_jobs, jobs = jobs, max(1, min(jobs, len(sources)))
    # children forked from the warmed server where possible; spawned when one reads the CUDA device's name
    context = worker_context(thread_share(jobs), cuda=CUDA in devices)
    sys_path, parent = list(sys.path), parent or ParentState.capture()
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context, max_tasks_per_child=1,
                                                  initializer=die_with_parent)  # a killed probe leaves none behind
    started(lambda: _stop(pool))  # how a caller in another thread stops it (an error, Ctrl-C)
    try:
        futures = {pool.submit(describe_in_child, source, sys_path, parent, rediscover, jobs,
                               (devices, opset) if index == 0 else None, max(1, run_jobs // jobs), watch): source
                   for index, source in enumerate(sources)}
        env: dict[str, Any] = {}
        described: dict[str, list[InventoryCase]] = {}
        reports: dict[str, ModuleReport] = {}
        without: dict[str, list[dict[str, Any]]] = {}
        for future in concurrent.futures.as_completed(futures):
            source = futures[future]
            outcome = _result(future, f"building the cases of {source.label}")
            if isinstance(outcome, ModuleMistake):
                raise LoadError(outcome.why)
            cases, seconds, skipped = outcome.cases, outcome.seconds, outcome.skipped
            env = outcome.environment or env
            described[source.module] = cases
            without[source.module] = outcome.objects_without_cases
            reports[source.module] = ModuleReport(source.label, len(cases), round(seconds, 3), outcome.peak_rss_kb,
                                                  skipped)
            said = skipped or f"{source.label}: {len(cases)} case{'s' if len(cases) != 1 else ''} in {seconds:.1f} s"
            on_line(f"  {said} ({len(described)}/{len(sources)} modules)")
            on_module(source, cases)
    except BaseException:
        # a mistake in one module (or Ctrl-C) must not wait for another module's minutes of examples
        _stop(pool)
        raise
    pool.shutdown(wait=True)
    cases, repeats = join_inventory((source.label, described[source.module]) for source in sources)
    return Inventory(cases=cases, repeats=repeats, torch_version=env["torch"], cuda_available=env["cuda"],
                     environments=env["environments"], modules=[reports[s.module] for s in sources],
                     objects_without_cases=_joined(without[s.module] for s in sources))


def _joined(per_module: Any) -> list[dict[str, Any]]:
    """Each module's objects without cases, once per object (two modules may survey one package)."""
    seen: dict[str, dict[str, Any]] = {}
    for objects in per_module:
        for entry in objects:
            seen.setdefault(entry["ref"], entry)
    return [seen[ref] for ref in sorted(seen)]


STOP_WAIT = 60.0  # seconds a stop waits for the fork server to hand over a child it is still starting
_STOPPING = threading.Lock()
_STOPPED: weakref.WeakSet = weakref.WeakSet()


def _stop(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Kill the pool's children now, and those it is still starting. The executor has no public way to (before
    Python 3.14's ``terminate_workers``), so this reads its process table until the pool is broken (a child it
    ran died) or has no work left: a child asked for in the first seconds appears there only once the warmed
    fork server, still importing torch, has forked it, so one look can miss it (the stop then waited minutes
    for that child's module). Shutting down then waits for the executor's own thread (the children are dead,
    so it ends at once): without the wait, that thread could still be replacing a child that had finished its
    module, and it died printing "TypeError: object of type 'NoneType' has no len()" under the probe's own
    error. Once per pool: the survey's thread (--stop-after, Ctrl-C) and the inventory's own (whose children
    just died under it) may both stop it."""
    with _STOPPING:
        if pool in _STOPPED:
            return
        _STOPPED.add(pool)
        give_up = time.monotonic() + STOP_WAIT
        while True:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                if process.is_alive():
                    process.kill()
            if getattr(pool, "_broken", True) or not getattr(pool, "_pending_work_items", None) \
                    or time.monotonic() > give_up:
                break
            time.sleep(0.1)
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except OSError:  # the executor's thread closed the result queue itself when the kill broke the pool
            pass


def _result(future: concurrent.futures.Future, doing: str) -> Any:
    try:
        return future.result()
    except concurrent.futures.process.BrokenProcessPool:
        raise ToolError(f"the child process {doing} died (a crash, or the out-of-memory killer); its output is "
                        "above. Nothing was measured.") from None
    except Exception as exc:  # a mistake in a case module comes back as a ModuleMistake: this is the probe's
        raise ToolError(f"the child process {doing} failed: {type(exc).__name__}: {(str(exc).strip() or '?').splitlines()[0]}. This is the "
                        "probe's error or the environment's (torch, CUDA), not the case module's; nothing was "
                        "measured.") from None
