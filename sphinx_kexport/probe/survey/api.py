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
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, TextIO

from ...snapshot.code_table import unpack
from ...snapshot.vocabulary import CUDA
from ..base.code_digest import CodeCheck, CodePlaces, SourceDigests
from ..base.errors import ProbeError, ToolError, did_you_mean
from ..base.reuse.decide import reusable_keys
from ..cases.inventory import InventoryCase, LoadError
from ..cases.loader import resolve_sources
from ..measure.environment import library_info, tool_versions
from ..measure.locate import NO_LIBRARY, library_root
from ..discover.progress import whole_line
from ..run.inventory import Inventory, build_inventory
from ..run.outcomes import Outcomes
from ..run.parent_state import ParentState
from ..run.pool import Runner
from ..run.progress import Progress, eager_failed_cells, eager_summary
from ..run.settings import WorkerSettings, thread_share
from ..run.workdir import WorkDir, work_dir_for
from .baseline import Baseline, digest_store, read_baseline
from .cells import Cells
from .config import ProbeConfig
from .plan import Plan, estimate, plan_survey, planned_lines
from .select import matches, pick_library
from .streaming_inventory import StreamingInventory
from .writing import survey_stats, write_snapshot, write_stats


class SurveyError(ProbeError):
    """Raised by :func:`run_survey`: a mistake the user can fix, in the settings or a case module; the message
    says what to fix. Nothing was measured, or nothing was written (the command exits 2)."""


class SurveyStopped(ProbeError):
    """Raised by :func:`run_survey`: the survey was stopped by
    :option:`--stop-after <python -m sphinx_kexport.probe --stop-after>` (``ProbeConfig.stop_after``) before
    the case modules were all described (their docstring examples and tests still running), so no snapshot
    can be written. The cases measured until then stay in the work directory and the examples that finished
    in the :ref:`discovery cache <discovery-cache>`: the same call again goes on (the command exits 5). When
    the limit comes later, nothing is raised: the snapshot is written with what was finished."""


@dataclass
class SurveyCounts:
    """What a survey did, counted: the ``counts`` of a :class:`SurveyResult`.

    :ivar measured: (case, device) cells measured by this run
    :ivar reused_snapshot: cells unchanged since the snapshot, reused from it
    :ivar reused_work: cells reused from the records of an interrupted run
    :ivar skipped: ``skip=`` cases
    :ivar failed_eagerly: probed cases that did not run eagerly (a problem with the case or the environment)
    """

    measured: int = 0  # (case, device) cells measured by this run
    reused_snapshot: int = 0  # unchanged since the snapshot
    reused_work: int = 0  # from the records of an interrupted run
    skipped: int = 0  # skip= cases
    failed_eagerly: int = 0  # probed cases that did not run eagerly (a problem with the case or the environment)


@dataclass
class SurveyResult:
    """What :func:`run_survey` returns.

    :ivar snapshot: the snapshot dict written, or left as it was
    :ivar written: ``False`` when nothing was measured and nothing changed, so the file was left alone
    :ivar out: the snapshot file
    :ivar counts: a :class:`SurveyCounts`: ``measured``, ``reused_snapshot``, ``reused_work``, ``skipped``,
        ``failed_eagerly``
    :ivar notes: for people: what was carried over or dropped
    :ivar eager_failures: a line per case that did not run eagerly
    :ivar new_eager_failures: ``"name [device]"`` of those the snapshot there did not already record as failing
        eagerly (an eager failure already in the base is no news); the command exits 4 when there is one
    :ivar stats: timings and peak memory: what
        :option:`--stats <python -m sphinx_kexport.probe --stats>` writes (with ``--dry-run``: the cells it
        would measure and the estimate, ``plan.estimate``)
    :ivar stopped: how many (case, device) cells
        :option:`--stop-after <python -m sphinx_kexport.probe --stop-after>` left unmeasured (they are
        listed as missing)
    :ivar not_built: a line per case its worker could not build as described (``"name [device]: why"``):
        the probe's error, not the operator's; such a case has no results in the snapshot (it is listed as
        missing), and the command then exits 3
    :ivar plan: with :option:`--dry-run <python -m sphinx_kexport.probe --dry-run>`: what the run would
        measure and why, in lines
    """

    snapshot: dict[str, Any]
    written: bool  # False when a rerun measured nothing and changed nothing: the file was left as it was
    out: Path
    counts: SurveyCounts
    notes: list[str] = field(default_factory=list)  # for people: what was carried over or dropped
    eager_failures: list[str] = field(default_factory=list)  # lines naming each case that failed eagerly
    # "name [device]" of the eager failures the snapshot there did not already hold: the CLI exits 4 for these only
    new_eager_failures: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)  # timings and peak memory (what --stats writes)
    stopped: int = 0  # (case, device) cells --stop-after left unmeasured (listed as missing)
    # "name [device]: why" for each case its worker could not build: the probe's error, not the operator's;
    # such a case has no results in the snapshot (it is listed as missing), and the CLI exits with EXIT_TOOL
    not_built: list[str] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)  # --dry-run: what the run would measure and why, in lines


def run_survey(config: ProbeConfig, *, stream: TextIO | None = None) -> SurveyResult:
    """Run the survey ``config`` describes and write its snapshot.

    Like the command, it builds the inventory in child processes and measures in workers: the calling process
    never imports torch or a case module. The children fork from one warm server that the first survey of the
    process starts and later ones reuse; each child takes the environment (``os.environ``) its own survey
    started with and the process's current directory, so a second survey run after either changed sees the
    new ones.

    :param config: the settings: a :class:`ProbeConfig`
    :param stream: where progress goes (``None``: ``sys.stdout``)
    :returns: a :class:`SurveyResult`
    :raises SurveyError: a mistake the user can fix; nothing was measured. It names the mistake: a case
        module that does not import, two cases with one name, ``--only`` matching nothing, no CUDA device; a
        case the probe itself fails to describe is named too, "case 'X': the probe failed to describe it
        (...). This is a bug in sphinx-kexport", with the traceback on stderr.
    :raises SurveyStopped: ``config.stop_after`` came before the case modules were all described
    :raises ToolError: the probe itself could not run; finished cases are kept in the work directory: run
        again to resume
    :raises KeyboardInterrupt: likewise: finished cases are kept, run again to resume
    """
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
    library = config.library
    if library and library_root(library) is NO_LIBRARY:
        raise SurveyError(f"library {library!r} (set by `library` or --library) cannot be imported; install it, or "
                          "fix the import name. Nothing was run.")
    survey = _Survey(config, sources, out, began)
    return survey.dry_run() if config.dry_run else survey.run()


class _Survey:
    """One survey while it runs: it plans as cases become known (:class:`~.cells.Cells`), measures, and writes
    (:mod:`.writing`) from what it starts from (:class:`~.baseline.Baseline`). With ``library`` set (and no
    shard, no cuda), measuring starts while the inventory is still being built: a hand-written case is final
    the moment its module is described (its name is never changed and it is never dropped), so its tasks go to
    the workers at once; discovered cases follow when every module is in (their names and repeats depend on all
    of them)."""

    def __init__(self, config: ProbeConfig, sources: list[Any], out: TextIO, began: float):
        self.config, self.sources, self.out, self.began = config, sources, out, began
        # one environment for the whole survey, as it was when the survey began: the inventory's children
        # and the workers (which start later, while the inventory may still run) adopt the same one
        self.parent = ParentState.capture()
        # the speed pass times on a quiet machine: the inventory's children (running the library's examples and
        # tests) must not share it with the timings, so a --speed survey measures only once discovery is over
        could_stream = bool(config.library) and not config.shard and CUDA not in config.devices
        self.held_for_speed = could_stream and config.speed
        streaming = could_stream and not config.speed
        # the inventory built in a thread that feeds the runner (None: built first, then measured)
        self.stream = StreamingInventory(self._build_streaming) if streaming else None
        self.notes: list[str] = []
        self.work = WorkDir(work_dir_for(config.out))
        self.progress = Progress(0, stream=out)
        self.progress.final = False
        self.cells = Cells(self.progress, self._plan, config.out.name if not config.shard else "the snapshot")
        self.inventory: Inventory | None = None
        self.selected: list[InventoryCase] = []
        self.tools = tool_versions()
        self.base = Baseline(speed=config.speed)  # read once the library is known (_prepare)
        self.places = CodePlaces(root=str(config.root))  # where the refs of the code the cases ran point
        self.code: CodeCheck | None = None  # whether that code is still the code there is

    @property
    def streaming(self) -> bool:
        return self.stream is not None

    def say(self, line: str) -> None:
        whole_line(self.out, line)

    # -- before anything runs

    def _library(self, cases: list[InventoryCase]) -> tuple[str, dict[str, str]]:
        library = self.config.library or pick_library(cases)
        root = library_root(library)
        directory = root.directory if root is not NO_LIBRARY else ""
        self.places = CodePlaces(library if directory else "", directory, str(self.config.root))
        return library, library_info(library, directory)

    def _prepare(self, info: dict[str, str]) -> None:
        if self.config.fresh and not self.config.dry_run:
            self.work.remove()
        self.base = read_baseline(self.config, info, self.tools, self.notes)
        self.code = CodeCheck(self.places, SourceDigests(digest_store()))
        if self.base.carried:  # the code sets of the results the written snapshot keeps
            self.cells.code_sets.update(unpack(self.base.carried.get("code")))

    def _keys(self, case: InventoryCase, device: str) -> tuple[str, ...]:
        return reusable_keys(case.definition, device, self.config.opset, self.base.info["version"], self.tools,
                             self.config.dynamic)

    def _code_folders(self) -> list[str]:
        """Where the code is whose running a record names: the library's folder and the case modules'."""
        folders = [self.places.library_dir] + [source.path_entry for source in self.sources]
        return [folder for folder in folders if folder]

    def _runner(self, library: str, jobs: int) -> Runner:
        settings = WorkerSettings(sys_path=list(sys.path), sources=list(self.sources), library=library,
                                  opset=self.config.opset, dynamic=self.config.dynamic,
                                  speed=self.base.speed,
                                  threads=thread_share(jobs), parent=self.parent,
                                  code_places=self.places if self.config.watch_code else None,
                                  code_folders=self._code_folders())
        outcomes = Outcomes(self.work, library_root(library),
                            on_start=lambda t: self.progress.started(t.name, t.device),
                            on_finish=self.cells.finished, on_note=self.progress.note,
                            on_unbuilt=self.cells.not_built, dynamic=self.config.dynamic)
        return Runner(settings=settings, jobs=jobs, timeout=self.config.timeout,
                      build_timeout=self.config.build_timeout, outcomes=outcomes,
                      cuda=CUDA in self.config.devices, stop_at=self._stop_at())

    def _stop_at(self) -> float:
        """When measuring stops (``time.monotonic()``): --stop-after counts from when the survey began."""
        return float("inf") if self.config.stop_after is None else self.began + self.config.stop_after

    def _keep_digests(self) -> None:
        if self.code is not None:
            self.code.digests.save()

    def _plan(self, cases: list[InventoryCase]) -> Plan:
        """What to do with each of ``cases`` on each device, and why each measured one is measured."""
        base = self.base
        return plan_survey(cases, self.config.devices, self._keys, self.work, base.reusable, self.config.timeout,
                           code=self.code, why_not=base.why_not, snapshot_cases=base.snapshot_cases,
                           speed=self.config.speed)

    # -- the run

    def _build_inventory(self, on_module: Any = lambda source, cases: None, started: Any = lambda stop: None
                         ) -> Inventory:
        config = self.config
        if config.library and not self.places.library_dir:  # known before the cases are: watch building them there
            self._library([])
        inventory = build_inventory(self.sources, jobs=config.jobs, rediscover=config.rediscover, devices=config.devices,
                                    opset=config.opset, on_line=self.say, on_module=on_module, started=started,
                                    parent=self.parent,
                                    watch=(self.places, self._code_folders()) if config.watch_code else None)
        if inventory.repeats:
            shown = ", ".join(f"{d.name} (= {h.name})" for d, h in inventory.repeats[:5]) + (
                ", ..." if len(inventory.repeats) > 5 else "")
            self.say(f"note: {len(inventory.repeats)} discovered case(s) repeat a case that wins over them "
                     f"(hand-written, then docstring, then test) and are not probed: {shown}")
        if CUDA in config.devices and not inventory.cuda_available:
            raise SurveyError(f"--device cuda: this machine has no usable CUDA device (torch "
                              f"{inventory.torch_version} sees no GPU). Probe cuda on a GPU machine and merge, or "
                              "drop cuda from `devices`. Nothing was written.")
        return inventory

    def _inventory_first(self) -> str:
        """Build the whole inventory, then learn the library, what may be reused and which cases are selected;
        the library's import name."""
        try:
            self.inventory = self._build_inventory()
        except LoadError as exc:
            raise SurveyError(f"{exc}\nNothing was run.") from None
        library, info = self._library(self.inventory.cases)
        self._prepare(info)
        self.selected = _select(self.config, self.inventory.cases, self.say)
        return library

    def dry_run(self) -> SurveyResult:
        """Build the inventory and plan, then stop: what a run would measure, and why."""
        self._inventory_first()
        plan = self._plan(self.selected)
        counts = SurveyCounts(reused_snapshot=len(plan.cached), reused_work=len(plan.resumed), skipped=len(plan.skips))
        self._keep_digests()
        stats = {"dry_run": True, **estimate(plan)}
        write_stats(self.config, stats)
        return SurveyResult(snapshot=self.base.previous or {}, written=False, out=self.config.out, counts=counts,
                            notes=self.notes, stats=stats, plan=planned_lines(plan, self.config.out.name))

    def run(self) -> SurveyResult:
        config = self.config
        modules = max(1, min(config.jobs, len(self.sources)))
        self.say(f"building the cases of {len(self.sources)} case module{'s' if len(self.sources) != 1 else ''} "
                 f"in {modules} child process{'es' if modules != 1 else ''}"
                 + (" (running the docstring examples again: --rediscover)" if config.rediscover else "")
                 + ("; hand-written cases are measured as their modules come in" if self.streaming else "")
                 + ("; measuring begins once every module is built (--speed times on a machine the library's "
                    "examples and tests no longer load)" if self.held_for_speed else ""))
        if self.stream is not None:
            library, info = self._library([])
            self._prepare(info)
            runner = self._runner(library, config.jobs)
            feed = self.stream.start()
            measure = lambda: runner.run([], feed, lambda item: self.cells.take(*item))  # noqa: E731
        else:
            library = self._inventory_first()
            tasks = self.cells.take(self.selected, final=True)
            runner = self._runner(library, min(config.jobs, max(1, len(tasks))))
            measure = lambda: runner.run(tasks)  # noqa: E731
            self._probing_line(runner.jobs)
        measuring = time.monotonic()
        ended = False
        try:
            try:
                self.work.path.mkdir(parents=True, exist_ok=True)
                measure()
            except LoadError as exc:  # from the inventory's thread: a mistake in a case module
                raise SurveyError(f"{exc}\nNothing was written; cases measured before it are kept in "
                                  f"{self.work.path} and reused by the next run.") from None
            except ToolError as exc:
                raise ToolError(f"{exc}\nFinished cases are kept in {self.work.path}; rerun to resume.") from None
            finally:
                self.progress.close()
                if self.stream is not None:
                    self.stream.stop()
            self.cells.stopped = self._left_at_stop(runner)
            snapshot, written = self._write()
            self._keep_digests()
            if not config.keep_work:
                self.work.remove()
            ended = True
        finally:
            runner.close()  # the workers were told to stop; they exited while the snapshot was assembled
            if not ended:  # interrupted or failed: what was measured until then is still worth reading
                write_stats(config, self._stats(runner, measuring, ended=False))
        return self._result(snapshot, written, runner, measuring)

    def _left_at_stop(self, runner: Runner) -> set[tuple[str, str]]:
        """The (case, device) cells --stop-after left unmeasured; they are written as missing, not with an
        earlier result (this run found that result out of date, or had none), so the next run measures them.
        Raises SurveyStopped when it came before the inventory was complete (no snapshot can be written)."""
        if not runner.stopped:
            return set()
        if self.inventory is None:
            kept = (f"The {len(self.cells.measured)} case(s) measured until then are kept in {self.work.path}, and "
                    if self.cells.measured else "")
            raise SurveyStopped(
                f"--stop-after {self.config.stop_after:g} s came before the case modules were all described "
                f"(their docstring examples and tests were still running), so no snapshot can be written. "
                f"{kept}{'the' if kept else 'The'} discovery cache keeps the examples that finished: run the same "
                "command again to go on, or give it more time.")
        left = self.cells.left(self.selected, self.config.devices)
        if left:
            devices = ", ".join(d for d in self.config.devices if any(device == d for _, device in left))
            self.notes.append(f"--stop-after {self.config.stop_after:g} s: measuring stopped with {len(left)} "
                              f"case(s) left on {devices}; the snapshot lists them as missing (complete: false): "
                              "run the same command again to measure them")
        return left

    def _probing_line(self, jobs: int) -> None:
        config, total = self.config, len(self.inventory.cases) if self.inventory else 0
        where = f" (shard {config.shard})" if config.shard else ""
        self.say(f"probing {len(self.selected)} of {total} cases on {', '.join(config.devices)}{where} with {jobs} "
                 f"worker(s); records in {self.work.path}")

    def _build_streaming(self, stream: StreamingInventory) -> None:
        """(In the inventory's thread) hand over each module's hand-written cases (that --only selects) as the
        module comes in, then the rest."""

        def on_module(source: Any, cases: list[InventoryCase]) -> None:
            stream.hand_over([c for c in cases if not c.discovered and _wanted(self.config, c)])

        self.inventory = self._build_inventory(on_module, stream.stoppable)
        self.selected = _select(self.config, self.inventory.cases, self.say)
        stream.hand_over(self.selected, final=True)
        self._probing_line(self.config.jobs)

    def _write(self) -> tuple[dict[str, Any], bool]:
        assert self.inventory is not None
        self.progress.total, self.progress.final = self.cells.plan.total, True
        return write_snapshot(self.config, self.base, self.tools, self.inventory, self.cells, self.selected,
                              self.work, self.notes)

    def _result(self, snapshot: dict[str, Any], written: bool, runner: Runner, measuring: float) -> SurveyResult:
        config, cells, plan = self.config, self.cells, self.cells.plan
        probed = {case.name for case in self.selected}
        eager = eager_summary([c for c in snapshot["cases"] if c["name"] in probed], config.devices)
        # an eager failure the snapshot there was already held is no news: listed, not the run's exit status
        known = eager_failed_cells((self.base.previous or {}).get("cases", []), config.devices)
        news = [f"{name} [{device}]" for name, device in
                eager_failed_cells([c for c in snapshot["cases"] if c["name"] in probed], config.devices)
                if (name, device) not in known]
        left = {(task.name, task.device) for task in plan.tasks} & cells.stopped  # planned, then --stop-after
        counts = SurveyCounts(measured=len(plan.tasks) - len(left), reused_snapshot=len(plan.cached),
                              reused_work=len(plan.resumed), skipped=len(plan.skips),
                              failed_eagerly=max(0, len(eager) - 1))
        stats = {**self._stats(runner, measuring, ended=True),
                 "measured": counts.measured, "reused": counts.reused_work, "reused_snapshot": counts.reused_snapshot,
                 "skipped": counts.skipped}
        write_stats(config, stats)
        return SurveyResult(snapshot=snapshot, written=written, out=config.out, counts=counts, notes=self.notes,
                            eager_failures=eager, new_eager_failures=news, stats=stats, stopped=len(cells.stopped),
                            not_built=[f"{name} [{device}]: {why}" for (name, device), why in cells.unbuilt.items()])

    def _stats(self, runner: Runner, measuring: float, *, ended: bool) -> dict[str, Any]:
        return survey_stats(self.began, measuring, runner, self.cells, self.inventory, streamed=self.streaming,
                            ended=ended)


def _wanted(config: ProbeConfig, case: InventoryCase) -> bool:
    return not config.only or any(matches(case.name, case.package, p) for p in config.only)


def _select(config: ProbeConfig, cases: list[InventoryCase], say: Any) -> list[InventoryCase]:
    selected = [c for c in cases if _wanted(config, c)]
    unmatched = [p for p in config.only if not any(matches(c.name, c.package, p) for c in selected)]
    if unmatched:  # a mistyped pattern beside others that match would narrow the run silently
        hints = "".join(did_you_mean(p, [c.name for c in cases] + [c.package for c in cases]) for p in unmatched
                        if not any(ch in p for ch in "*?"))
        raise SurveyError(f"no case matches --only {' '.join(unmatched)} (the case modules register {len(cases)} "
                          f"cases).{hints} Nothing was run.")
    if config.shard:
        chosen = {c.name for c in selected}
        matching = len(selected)
        selected = [c for i, c in enumerate(cases) if config.shard.selects(i) and c.name in chosen]
        if not selected:  # not a mistake: a CI matrix has more shards than this selection has cases
            which = f"of the {matching} cases matching --only {' '.join(config.only)}" if config.only else \
                f"of the {len(cases)} cases"
            say(f"shard {config.shard} holds none {which}; writing an empty part for `merge`")
    return selected


__all__ = ["SurveyCounts", "SurveyError", "SurveyResult", "SurveyStopped", "run_survey"]
