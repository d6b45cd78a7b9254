"""Run cases in a pool of worker processes, surviving crashes and hangs.

Each worker imports torch and the case modules once and then measures cases
one at a time. The parent never runs case code: it hands out tasks, writes
each record to the work directory the moment a case ends, and watches the
workers. A worker that dies (segfault, abort, out-of-memory kill) or runs
past the time limit is replaced; the path it was in is recorded at stage
``process`` (``fail`` for a death, ``timeout`` for the limit: not known, not
failing) and the case's remaining paths run in the fresh worker, so one crash
costs one path, not the survey. The limit applies to each step on its own:
running the case eagerly, each path, each dynamic-batch pass. Building the case
(from the discovery cache, or its one example or test run again) has a limit of
its own, ``build_timeout``: a case not built in time is not the operator's
timeout; like any case its worker cannot build, it is not measured, nothing is
recorded for it, and the next run tries again.

A case that calls a module with large weights (:data:`FRESH_WORKER_ABOVE`) is
measured by a worker that has measured nothing before it, so that its peak is
its own: what earlier cases leave in a worker (up to the recycling threshold;
torch's caches, the allocator's pages) otherwise decides how much the same model
measures in one run and another.

The parts: a slot's process, pipe, deadline and log (worker_slot.py); what a
worker says (messages.py, matched by type in :class:`SlotEvents`); what a lost
worker costs its case (losses.py); where records and callbacks go (outcomes.py).
"""

from __future__ import annotations

import collections
import dataclasses
import multiprocessing.connection
import queue
import signal
import time
from typing import Any, Callable

from ..base.errors import ToolError
from .feed import FEED_POLL, Feed
from .messages import (CaseDone, CodeRan, CouldNotStart, EagerDigest, Environment, NotBuilt, PathResult, Ready,
                       StepBegan, WorkerMessage)
from .losses import not_built_in_time
from .outcomes import Outcomes
from .pool_stats import PoolStats
from .settings import WorkerSettings
from .task import Task
from .warm_start import worker_context
from .worker_slot import DEFAULT_BUILD_TIMEOUT, NEVER, START_TIMEOUT, WorkerSlot

MAX_EARLY_DEATHS = 2
FRESH_WORKER_ABOVE = 64 * 1024 * 1024  # bytes of a case's module weights from which it gets a fresh worker

__all__ = ["FRESH_WORKER_ABOVE", "Runner", "SlotEvents", "Task", "describe_exit"]


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
    """The queue of tasks and the loop that hands them to the worker slots, waits for what the workers say,
    and watches the deadlines (what a message, a death or a hang means is :class:`SlotEvents`')."""

    def __init__(self, *, settings: WorkerSettings, jobs: int, timeout: float, outcomes: Outcomes,
                 cuda: bool = False, stop_at: float = float("inf"), build_timeout: float = DEFAULT_BUILD_TIMEOUT):
        self.jobs, self.timeout, self.build_timeout = jobs, timeout, build_timeout
        # workers forked from a warmed process where possible; spawned when they measure on CUDA
        context = worker_context(settings.threads, cuda=cuda)
        logs = [str(outcomes.work.log_path(i)) for i in range(1, jobs + 1)]
        self.slots = [WorkerSlot(i, context, dataclasses.replace(settings, log_path=log))
                      for i, log in enumerate(logs, 1)]
        self.queue: collections.deque[Task] = collections.deque()
        self.feed = Feed()
        self.stats = PoolStats()
        self.events = SlotEvents(outcomes, self.stats, self.queue, timeout, build_timeout)
        # bytes of module weights from which a case is measured by a worker that measured nothing before it
        # (read when the runner is made, so that a test or a benchmark may set the module's value)
        self.fresh_above = FRESH_WORKER_ABOVE
        self.stop_at = stop_at  # time.monotonic() at which measuring stops (--stop-after)
        self.stopped = False  # stop_at came first: the tasks queued or running then were not measured

    def run(self, tasks: list[Task], feed: queue.Queue | None = None,
            on_fed: Callable[[Any], list[Task]] = lambda item: item) -> None:
        """Measure ``tasks``, and those that arrive on ``feed`` while it runs (see :class:`~.feed.Feed`). Idle
        workers are told to stop at the end, and ``close`` waits for them."""
        self.queue.extend(tasks)
        self.feed = Feed(feed, on_fed)
        try:
            self._loop()
        except BaseException:
            self.close(kill=True)
            raise
        for slot in self.slots:
            if slot.live:
                slot.ask_to_stop()  # they exit while the parent assembles the snapshot

    def close(self, kill: bool = False) -> None:
        for slot in self.slots:
            self.events.retire(slot, kill=kill or slot.task is not None)

    def _loop(self) -> None:
        while time.monotonic() < self.stop_at:
            self.queue.extend(self.feed.take(block=not self._busy()))
            if not self._busy():
                if not self.feed.open:
                    return
                continue
            self._hand_out()
            live = [s for s in self.slots if s.live]
            if live:
                self._wait(live)
                self._check_deadlines()
        self._stop_now()

    def _busy(self) -> bool:
        return bool(self.queue) or any(s.task for s in self.slots)

    def _hand_out(self) -> None:
        """Start workers for the tasks waiting (no more than there are tasks), and give each ready idle worker
        the next task: a case with large weights goes to a worker that measured nothing before it."""
        for slot in self.slots:
            if not slot.live and self.queue and sum(s.live for s in self.slots) < len(self.queue) + sum(
                    1 for s in self.slots if s.task):
                slot.spawn()
            if slot.ready and slot.task is None and self.queue:
                if slot.cases and self.queue[0].weight_bytes >= self.fresh_above:
                    slot.ask_to_stop()  # the next task goes to its fresh worker once that is ready
                    self.events.retire(slot, kill=False)
                    self.stats.fresh_for_weights += 1
                    slot.spawn()
                else:
                    task = self.queue.popleft()
                    self.events.outcomes.started(task)
                    slot.assign(task, self.build_timeout)  # then each step gets self.timeout

    def _wait(self, live: list[WorkerSlot]) -> None:
        """Until a worker says something or ends, a deadline (a step's, a start-up's, --stop-after) comes, or
        the feed is due for another look."""
        next_deadline = min([s.deadline for s in live] + [self.stop_at])
        wait_for = None if next_deadline == NEVER else max(0.0, next_deadline - time.monotonic())
        if self.feed.open:  # come back for what the feed brings
            wait_for = FEED_POLL if wait_for is None else min(wait_for, FEED_POLL)
        waitables = {item: slot for slot in live for item in slot.waitables()}
        for item in multiprocessing.connection.wait(list(waitables), timeout=wait_for):
            slot = waitables[item]
            if not slot.live:
                continue
            if item is slot.conn:
                try:
                    self.events.handle(slot, slot.receive())
                except (EOFError, OSError):
                    self.events.died(slot)
            elif not slot.process.is_alive():
                self.events.died(slot)

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            if slot.live and not slot.ready and now >= slot.deadline:
                raise ToolError(f"worker {slot.index} did not start within {START_TIMEOUT:g} s (importing torch "
                                f"and the case modules). Its log ends with:\n{slot.log_tail(limit=3000)}")
            if slot.task is not None and now >= slot.deadline:
                self.events.overran(slot)

    def _stop_now(self) -> None:
        """``stop_at`` has come: the running cases are stopped (their workers killed, nothing recorded for
        them) and the queued ones dropped; the feed is no longer read."""
        self.stopped = True
        self.queue.clear()
        for slot in self.slots:
            slot.task = None
            self.events.retire(slot, kill=True)
        self.feed.close()


class SlotEvents:
    """What a worker's message, its death or its running past the time limit means for its slot and its task:
    matched by type; a lost task's rest goes first in ``queue``."""

    def __init__(self, outcomes: Outcomes, stats: PoolStats, queue: collections.deque[Task], timeout: float,
                 build_timeout: float = DEFAULT_BUILD_TIMEOUT):
        self.outcomes, self.stats, self.queue, self.timeout = outcomes, stats, queue, timeout
        self.build_timeout = build_timeout

    def handle(self, slot: WorkerSlot, message: WorkerMessage) -> None:
        task = slot.task
        match message:
            case Ready():
                slot.became_ready()
            case CouldNotStart(why=why):
                raise ToolError(f"a worker could not start: {why}")
            case Environment(device=device, environment=environment):
                self.outcomes.environment(device, environment)
            case StepBegan(step=step):
                self.stats.count(*slot.begin(step, self.timeout))  # each step has the whole time limit
            case PathResult(path=path, result=record) if task is not None:
                task.results[path] = record
                slot.step = None
            case CodeRan(code=code) if task is not None:
                task.code = {**(task.code or {}), **code}
            case EagerDigest() if task is not None:
                task.eager = message.stamp()
            case NotBuilt(why=why) if task is not None:
                self.outcomes.not_built(self._release(slot), why)
            case CaseDone() if task is not None:
                slot.peak_kb = max(slot.peak_kb, message.lifetime_peak_kb)
                task.peak_rss_kb = max(task.peak_rss_kb, message.case_peak_kb)
                task.began_rss_kb = message.began_kb
                self.outcomes.finished(self._release(slot))
                if message.retiring:  # it grew past settings.recycle_rss_kb and exits: a fresh one takes the slot
                    self.stats.recycled += 1
                    self.retire(slot, kill=False)
            case PathResult() | CodeRan() | EagerDigest() | NotBuilt() | CaseDone():
                pass  # about a case lost (timed out) before the message was read
            case _:
                raise ToolError(f"worker {slot.index} sent a message of an unknown type, "
                                f"{type(message).__name__}: {message!r}")

    def died(self, slot: WorkerSlot) -> None:
        self._drain(slot)
        exitcode = slot.exit_code()
        was_ready = slot.ready
        if slot.building:  # the case never ran: no status, the next run tries again
            why = f"its worker died while building it: {describe_exit(exitcode)}"
            self.outcomes.not_built(self._release(slot), why)
        elif slot.task is not None:
            self._lose(slot, describe_exit(exitcode))
        self.retire(slot, kill=True)
        if not was_ready:
            slot.early_deaths += 1
            if slot.early_deaths >= MAX_EARLY_DEATHS:
                raise ToolError(f"worker {slot.index} died twice while starting ({describe_exit(exitcode)}). "
                                f"Its log ends with:\n{slot.log_tail(limit=3000)}")

    def overran(self, slot: WorkerSlot) -> None:
        """Its task's step ran past the time limit (the worker's stack goes to its log, and it is killed), or
        its case was not built within the build limit: then no step began, and no status is recorded."""
        slot.stop_hung()
        self._drain(slot)
        if slot.building:
            self.stats.not_built_in_time += 1
            why = not_built_in_time(self.build_timeout, slot.log_tail(limit=0), self.outcomes.root)
            self.outcomes.not_built(self._release(slot), why)
        elif slot.task is not None:
            self._lose(slot, f"ran past the time limit of {self.timeout:g} s", timed_out_after=self.timeout)
        self.retire(slot, kill=True)

    def retire(self, slot: WorkerSlot, kill: bool) -> None:
        self.stats.retired(slot.retire(kill))

    def _drain(self, slot: WorkerSlot) -> None:
        for message in slot.drain():  # results sent just before it died still count
            self.handle(slot, message)

    def _lose(self, slot: WorkerSlot, why: str, timed_out_after: float = 0.0) -> None:
        """The worker died, or ran past the time limit, inside ``slot.step``: what is left of its case first."""
        step, log = slot.step, slot.log_tail(limit=0)
        task = self._release(slot)
        if self.outcomes.lost(task, step, why, log, timed_out_after):
            self.queue.appendleft(task)

    def _release(self, slot: WorkerSlot) -> Task:
        """The task ``slot`` ran ends (measured, not buildable, or lost): its time counted, the slot free."""
        self.stats.count(*slot.switch_timing())
        return slot.release()
