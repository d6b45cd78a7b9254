"""Run cases in a pool of worker processes, surviving crashes and hangs.

Each worker imports torch and the case modules once and then measures cases
one at a time. The parent never runs case code: it hands out tasks, writes
each record to the work directory the moment a case ends, and watches the
workers. A worker that dies (segfault, abort, out-of-memory kill) or runs
past the time limit is replaced; the path it was in is recorded at stage
``process`` (``fail`` for a death, ``timeout`` for the limit: not known, not
failing) and the case's remaining paths run in the fresh worker, so one crash
costs one path, not the survey. The limit applies to each step on its own:
building the case and running it eagerly, each path, each dynamic-batch pass.

A case that calls a module with large weights (:data:`FRESH_WORKER_ABOVE`) is
measured by a worker that has measured nothing before it, so that its peak is
its own: what earlier cases leave in a worker (up to the recycling threshold;
torch's caches, the allocator's pages) otherwise decides how much the same model
measures in one run and another.
"""

from __future__ import annotations

import collections
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..base.errors import ToolError
from ..cases.batch_dim import DYNAMIC_STEP
from ...snapshot.timestamps import utc_now
from ..measure.busy_with import busy_with
from ..measure.locate import LibraryRoot, where_text
from ...snapshot.result_records import result, timed_out, with_breaks
from ...snapshot.vocabulary import PATHS, STAGE_PROCESS, STATUS_TIMEOUT
from ..cases.inventory import DiscoveryRef, SuiteRef
from .settings import Assignment, WorkerSettings
from .warm_start import worker_context
from .workdir import WorkDir
from .worker import serve

STEP_LABELS = {"eager": "the eager reference", "onnx": "the ONNX export", "export": "torch.export",
               "compile": "torch.compile", None: "start-up"}
MAX_EARLY_DEATHS = 2
START_TIMEOUT = 600.0  # seconds a worker may take to import torch and the case modules
STACK_DUMP_WAIT = 0.5  # seconds a hung worker gets to write its stack before it is killed
FEED_POLL = 0.5  # seconds between looks at the feed while tasks may still arrive
FRESH_WORKER_ABOVE = 64 * 1024 * 1024  # bytes of a case's module weights from which it gets a fresh worker


@dataclass
class Task:
    name: str
    module: str  # the case module that registers it
    local_name: str  # the name that module registers it under
    device: str
    fingerprint: str
    paths: list[str]  # still to measure
    discovery: DiscoveryRef | SuiteRef | None = None  # a discovered case is rebuilt from its example or test alone
    definition: dict[str, Any] | None = None  # as the inventory described it: the worker checks what it built
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0
    peak_rss_kb: int = 0  # the most resident memory its worker used while measuring it
    began_rss_kb: int = 0  # what its worker held when it began (left by earlier cases): part of that peak
    weight_bytes: int = 0  # of the module it calls: at FRESH_WORKER_ABOVE or more it gets a fresh worker


@dataclass
class Slot:
    index: int
    process: Any = None
    conn: Any = None
    ready: bool = False
    task: Task | None = None
    step: str | None = None  # what the task is doing now: eager, onnx, export, compile
    started: float = 0.0
    timing: tuple[str, float] = ("", 0.0)  # the step whose time is being counted (``build`` before eager) and since when
    deadline: float = float("inf")
    log_offset: int = 0
    peak_kb: int = 0
    processes: int = 0
    early_deaths: int = 0
    cases: int = 0  # cases its current process was given


def describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "the worker process vanished"
    if exitcode < 0:
        number = -exitcode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        what = signal.strsignal(number) or ""
        hint = " (often the out-of-memory killer)" if number == signal.SIGKILL else ""
        return f"the worker process crashed with {name}{f' ({what.lower()})' if what else ''}{hint}"
    return f"the worker process exited with status {exitcode}"


class Runner:
    def __init__(self, *, work: WorkDir, settings: WorkerSettings, jobs: int, timeout: float,
                 root: LibraryRoot, on_start: Callable[[Task], None] = lambda t: None,
                 on_finish: Callable[[Task], None] = lambda t: None,
                 on_note: Callable[[str], None] = lambda s: None,
                 on_unbuilt: Callable[[Task, str], None] = lambda t, why: None, cuda: bool = False,
                 stop_at: float = float("inf")):
        self.work = work
        self.settings = settings
        self.jobs = jobs
        self.timeout = timeout
        self.root = root
        self.on_start = on_start
        self.on_finish = on_finish
        self.on_note = on_note
        self.on_unbuilt = on_unbuilt  # a case its worker could not build: nothing measured, nothing recorded
        # workers forked from a warmed process where possible; spawned when they measure on CUDA
        self.context = worker_context(settings.threads, cuda=cuda)
        self.slots = [Slot(i + 1) for i in range(jobs)]
        self.queue: collections.deque[Task] = collections.deque()
        self.peaks: list[dict[str, Any]] = []
        self.recycled = 0  # workers that handed their slot to a fresh process after a case
        # bytes of module weights from which a case is measured by a worker that measured nothing before it
        # (read when the runner is made, so that a test or a benchmark may set the module's value)
        self.fresh_above = FRESH_WORKER_ABOVE
        self.fresh_for_weights = 0  # workers started afresh for such a case
        self.step_seconds: collections.Counter[str] = collections.Counter()  # where the workers' time went
        self.feed: queue.Queue | None = None
        self.on_fed: Callable[[Any], list[Task]] = lambda item: item
        self.stop_at = stop_at  # time.monotonic() at which measuring stops (--stop-after)
        self.stopped = False  # stop_at came first: the tasks queued or running then were not measured

    # -- worker lifecycle

    def _spawn(self, slot: Slot) -> None:
        parent_conn, child_conn = self.context.Pipe()
        log_path = self.work.log_path(slot.index)
        settings = dataclasses.replace(self.settings, log_path=str(log_path))
        process = self.context.Process(target=serve, args=(child_conn, settings), daemon=False,
                                       name=f"kexport-worker-{slot.index}")
        process.start()
        child_conn.close()
        slot.process, slot.conn, slot.ready, slot.processes = process, parent_conn, False, slot.processes + 1
        slot.cases = 0
        slot.task, slot.step = None, None
        slot.deadline = time.monotonic() + START_TIMEOUT

    def _retire(self, slot: Slot, kill: bool) -> None:
        if slot.process is None:
            return
        if kill and slot.process.is_alive():
            slot.process.kill()
        slot.process.join(timeout=30)
        if slot.peak_kb:
            self.peaks.append({"slot": slot.index, "pid": slot.process.pid, "peak_rss_kb": slot.peak_kb})
        slot.conn.close()
        slot.process = slot.conn = None
        slot.ready, slot.peak_kb = False, 0

    def _log_tail(self, slot: Slot, limit: int = 1500) -> str:
        try:
            with open(self.work.log_path(slot.index), encoding="utf-8", errors="replace") as fh:
                fh.seek(slot.log_offset)
                return fh.read()[-20000:] if limit <= 0 else fh.read()[-limit:]
        except OSError:
            return ""

    @staticmethod
    def _dump_stack(slot: Slot) -> None:
        """Ask a hung worker for its Python stack (faulthandler writes it to the log), then give it a moment."""
        if not hasattr(signal, "SIGUSR1"):
            return
        try:
            os.kill(slot.process.pid, signal.SIGUSR1)
            slot.process.join(timeout=STACK_DUMP_WAIT)
        except (OSError, ValueError):
            pass

    # -- tasks

    def _wants_fresh_worker(self, slot: Slot) -> bool:
        """The next task calls a module with large weights, and this slot's worker has measured cases before."""
        return bool(slot.cases) and self.queue[0].weight_bytes >= self.fresh_above

    @staticmethod
    def _ask_to_stop(slot: Slot) -> None:
        """Tell the slot's idle worker to exit (it may be gone already)."""
        try:
            slot.conn.send(None)
        except (OSError, ValueError):
            pass

    def _start_afresh(self, slot: Slot) -> None:
        """Stop the slot's idle worker and start another; the next task goes to it once it is ready."""
        self._ask_to_stop(slot)
        self._retire(slot, kill=False)
        self.fresh_for_weights += 1
        self._spawn(slot)

    def _assign(self, slot: Slot) -> None:
        task = self.queue.popleft()
        slot.task, slot.step = task, None
        slot.cases += 1
        slot.started = time.monotonic()
        slot.deadline = slot.started + self.timeout
        slot.timing = ("build", slot.started)
        try:
            slot.log_offset = os.path.getsize(self.work.log_path(slot.index))
        except OSError:
            slot.log_offset = 0
        self.on_start(task)
        slot.conn.send(Assignment(task.name, task.module, task.local_name, task.device, list(task.paths),
                                  task.discovery, task.definition))

    def _time_step(self, slot: Slot, following: str = "") -> None:
        """Count the time of the step ``slot`` was in; ``following`` (if any) starts now."""
        step, since = slot.timing
        now = time.monotonic()
        if step:
            self.step_seconds[step] += now - since
        slot.timing = (following, now)

    def _release(self, slot: Slot) -> Task:
        """The task ``slot`` ran to its end (measured, or not buildable): its time counted, the slot free."""
        task = slot.task
        assert task is not None
        self._time_step(slot)
        task.seconds += time.monotonic() - slot.started
        slot.task, slot.step, slot.deadline = None, None, float("inf")
        return task

    def _finish(self, slot: Slot) -> None:
        self._complete(self._release(slot))

    def _complete(self, task: Task) -> None:
        ordered = {path: task.results[path] for path in PATHS}
        # its time and memory travel with the record, so an interrupted run still says which case cost what
        self.work.save(task.name, task.device, task.fingerprint, ordered, seconds=round(task.seconds, 3),
                       peak_rss_kb=task.peak_rss_kb, began_rss_kb=task.began_rss_kb, measured_at=utc_now())
        self.on_finish(task)

    def _lose_step(self, slot: Slot, why: str, timed_out_after: float = 0.0) -> None:
        """The worker died, or ran past the time limit (``timed_out_after`` seconds), inside ``slot.step``:
        record that path, requeue the rest."""
        task = slot.task
        assert task is not None
        self._time_step(slot)
        task.seconds += time.monotonic() - slot.started
        step = slot.step
        log = self._log_tail(slot, limit=0)
        where = where_text(log, self.root, innermost_first=True)
        doing = busy_with(log, self.root)  # "" when the library's own code was running (where names it)
        then = f"; {doing}" if doing else ""
        if step and step.endswith(DYNAMIC_STEP) and step[: -len(DYNAMIC_STEP)] in task.results:
            self._lose_dynamic_pass(slot, step[: -len(DYNAMIC_STEP)], why, then, where, timed_out_after)
            return
        detail = f"{why} during {STEP_LABELS.get(step, step)}{then}"
        failed = timed_out(detail, where, timed_out_after) if timed_out_after else result("fail", detail,
                                                                                          STAGE_PROCESS, where)
        pending = [p for p in task.paths if p not in task.results]
        # a crash before any path started (eager, start-up) takes the whole case; else only that path
        lost = pending if step not in PATHS else [step]
        for path in lost:
            task.results[path] = with_breaks(path, dict(failed))
        task.paths = [p for p in pending if p not in lost]
        self._after_death(slot, task, detail)

    def _lose_dynamic_pass(self, slot: Slot, path: str, why: str, then: str, where: str,
                           timed_out_after: float) -> None:
        """A death in a path's dynamic-batch pass: the path keeps its static result, the pass fails (or
        timed out); ``then``: what it was busy with, as the end of the detail."""
        task = slot.task
        assert task is not None
        detail = f"{why} during the dynamic-batch pass of {STEP_LABELS[path]}{then}"
        lost: dict[str, Any] = {"status": "fail", "detail": detail, "where": where}
        if timed_out_after:
            lost.update(status=STATUS_TIMEOUT, time_limit=timed_out_after)
        task.results[path] = dict(task.results[path], dynamic=lost)
        task.paths = [p for p in task.paths if p not in task.results]
        self._after_death(slot, task, detail)

    def _after_death(self, slot: Slot, task: Task, detail: str) -> None:
        """Free the slot, say what was lost, and queue what is left of the case first (or complete it)."""
        slot.task, slot.step, slot.deadline = None, None, float("inf")
        self.on_note(f"{task.name} [{task.device}]: {detail}")
        if task.paths:
            self.queue.appendleft(task)
        else:
            self._complete(task)

    # -- messages

    def _handle(self, slot: Slot, message: tuple) -> None:
        kind = message[0]
        if kind == "ready":
            slot.ready, slot.early_deaths, slot.deadline = True, 0, float("inf")
        elif kind == "init-error":
            raise ToolError(f"a worker could not start: {message[1]}")
        elif kind == "env":
            self.work.save_environment(message[1], message[2])
        elif kind == "path":
            slot.step = message[3]
            self._time_step(slot, message[3])
            slot.deadline = time.monotonic() + self.timeout  # each path and dynamic pass has the whole limit
        elif kind == "result" and slot.task is not None:
            slot.task.results[message[3]] = message[4]
            slot.step = None
        elif kind == "unbuilt" and slot.task is not None:
            self.on_unbuilt(self._release(slot), message[3])
        elif kind == "done" and slot.task is not None:
            slot.peak_kb = max(slot.peak_kb, int(message[3]))
            slot.task.peak_rss_kb = max(slot.task.peak_rss_kb, int(message[4]))
            slot.task.began_rss_kb = int(message[6])
            self._finish(slot)
            if message[5]:  # the worker grew past settings.recycle_rss_kb and exits: a fresh one takes the slot
                self.recycled += 1
                self._retire(slot, kill=False)

    def _drain(self, slot: Slot) -> None:
        try:
            while slot.conn is not None and slot.conn.poll():
                self._handle(slot, slot.conn.recv())
        except (EOFError, OSError):
            pass

    def _on_death(self, slot: Slot) -> None:
        self._drain(slot)  # results sent just before dying still count
        if slot.process is not None:
            slot.process.join(timeout=5)  # its pipe can close before it is reaped: wait for the exit status
        exitcode = slot.process.exitcode if slot.process else None
        was_ready = slot.ready
        if slot.task is not None:
            self._lose_step(slot, describe_exit(exitcode))
        self._retire(slot, kill=True)
        if not was_ready:
            slot.early_deaths += 1
            if slot.early_deaths >= MAX_EARLY_DEATHS:
                raise ToolError(f"worker {slot.index} died twice while starting ({describe_exit(exitcode)}). "
                                f"Its log ends with:\n{self._log_tail(slot, limit=3000)}")

    # -- the loop

    def run(self, tasks: list[Task], feed: queue.Queue | None = None,
            on_fed: Callable[[Any], list[Task]] = lambda item: item) -> None:
        """Measure ``tasks``, and those that arrive on ``feed`` while it runs: each item goes through ``on_fed``
        (in this thread) and gives tasks; an exception on the feed is raised here; None says no more will
        come. Idle workers are told to stop at the end, and ``close`` waits for them."""
        self.queue.extend(tasks)
        self.feed, self.on_fed = feed, on_fed
        try:
            self._loop()
        except BaseException:
            self.close(kill=True)
            raise
        for slot in self.slots:
            if slot.process is not None:
                self._ask_to_stop(slot)  # they exit while the parent assembles the snapshot

    def close(self, kill: bool = False) -> None:
        for slot in self.slots:
            self._retire(slot, kill=kill or slot.task is not None)

    def _take_fed(self, block: bool) -> None:
        """Queue what arrived on the feed; with ``block``, wait (briefly) for something when nothing runs."""
        while self.feed is not None:
            try:
                item = self.feed.get(block=block, timeout=FEED_POLL if block else None)
            except queue.Empty:
                return
            block = False
            if item is None:
                self.feed = None
            elif isinstance(item, BaseException):
                raise item
            else:
                self.queue.extend(self.on_fed(item))

    def _stop_now(self) -> None:
        """``stop_at`` has come: the running cases are stopped (their workers killed, nothing recorded for
        them) and the queued ones dropped; the feed is no longer read."""
        self.stopped = True
        self.queue.clear()
        for slot in self.slots:
            slot.task = None
            self._retire(slot, kill=True)
        self.feed = None

    def _loop(self) -> None:
        while True:
            if time.monotonic() >= self.stop_at:
                self._stop_now()
                return
            self._take_fed(block=not self.queue and not any(s.task for s in self.slots))
            if not (self.queue or any(s.task for s in self.slots)):
                if self.feed is None:
                    return
                continue
            for slot in self.slots:
                if slot.process is None and self.queue and sum(
                        1 for s in self.slots if s.process is not None) < len(self.queue) + sum(
                        1 for s in self.slots if s.task):
                    self._spawn(slot)
                if slot.ready and slot.task is None and self.queue:
                    if self._wants_fresh_worker(slot):
                        self._start_afresh(slot)
                    else:
                        self._assign(slot)
            live = [s for s in self.slots if s.process is not None]
            if not live:
                continue
            now = time.monotonic()
            # a slot's step limit or start-up, or --stop-after: whichever comes first wakes the loop
            next_deadline = min([s.deadline for s in live] + [self.stop_at])
            wait_for = None if next_deadline == float("inf") else max(0.0, next_deadline - now)
            if self.feed is not None:  # come back for what the feed brings
                wait_for = FEED_POLL if wait_for is None else min(wait_for, FEED_POLL)
            waitables: dict[Any, Slot] = {}
            for s in live:
                waitables[s.conn] = s
                waitables[s.process.sentinel] = s
            ready = multiprocessing.connection.wait(list(waitables), timeout=wait_for)
            for item in ready:
                slot = waitables[item]
                if slot.process is None:
                    continue
                if item is slot.conn:
                    try:
                        self._handle(slot, slot.conn.recv())
                    except (EOFError, OSError):
                        self._on_death(slot)
                elif not slot.process.is_alive():
                    self._on_death(slot)
            now = time.monotonic()
            for slot in self.slots:
                if slot.process is not None and not slot.ready and now >= slot.deadline:
                    raise ToolError(f"worker {slot.index} did not start within {START_TIMEOUT:g} s (importing "
                                    f"torch and the case modules). Its log ends with:\n"
                                    f"{self._log_tail(slot, limit=3000)}")
                if slot.task is not None and now >= slot.deadline:
                    self._dump_stack(slot)
                    slot.process.kill()
                    slot.process.join(timeout=30)
                    self._drain(slot)
                    if slot.task is not None:
                        self._lose_step(slot, f"ran past the time limit of {self.timeout:g} s",
                                        timed_out_after=self.timeout)
                    self._retire(slot, kill=True)

    def worker_peaks(self) -> list[dict[str, Any]]:
        return list(self.peaks)
