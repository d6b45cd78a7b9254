"""One place in the worker pool: its worker process (replaced when it dies, hangs or retires), the pipe to it,
the case it measures and the step it is in, when that step (or its start-up) must end, and its log."""

from __future__ import annotations

import os
import signal
import time
from typing import Any, Iterator

from ..cases.step import Step
from .messages import WorkerMessage
from .settings import WorkerSettings
from .task import Task
from .worker import serve

NEVER = float("inf")
START_TIMEOUT = 600.0  # seconds a worker may take to import torch and the case modules
# seconds a worker may take to build one case (from the discovery cache, or its one example or test run again):
# a limit of its own, not a step's; a case not built in time is not measured and has no record (the next run
# tries again). The probe's --build-timeout
DEFAULT_BUILD_TIMEOUT = 600.0
STACK_DUMP_WAIT = 0.5  # seconds a hung worker gets to write its stack before it is killed
BUILD = "build"  # how --stats names the time a case takes to be built, before its eager run


class WorkerSlot:
    def __init__(self, index: int, context: Any, settings: WorkerSettings):
        self.index = index
        self.context = context  # how its processes start (forked from a warmed process, or spawned)
        self.settings = settings  # its log_path is this slot's log
        self.process: Any = None
        self.conn: Any = None
        self.ready = False  # its worker imported torch and the case modules
        self.deadline = NEVER  # when its worker's start-up or its case's step runs out of time
        self.log_offset = 0  # where its current case begins in the log
        self.peak_kb = 0  # the most its current worker said it held
        self.early_deaths = 0  # its workers that died before they were ready, in a row
        self.cases = 0  # cases its current process was given
        self.task: Task | None = None
        self.step: Step | None = None  # what the task is doing now
        self.started = 0.0  # when the task was assigned
        self.timing: tuple[str, float] = ("", 0.0)  # the step whose time is being counted, and since when

    # -- its process

    @property
    def live(self) -> bool:
        return self.process is not None

    def spawn(self) -> None:
        parent_conn, child_conn = self.context.Pipe()
        process = self.context.Process(target=serve, args=(child_conn, self.settings), daemon=False,
                                       name=f"kexport-worker-{self.index}")
        process.start()
        child_conn.close()
        self.process, self.conn, self.ready, self.cases = process, parent_conn, False, 0
        self.task, self.step = None, None
        self.deadline = time.monotonic() + START_TIMEOUT

    def became_ready(self) -> None:
        self.ready, self.early_deaths, self.deadline = True, 0, NEVER

    def retire(self, kill: bool) -> dict[str, Any] | None:
        """Let its process go (``kill``: at once); gives the worker's peak for --stats, if it said one."""
        if self.process is None:
            return None
        if kill and self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=30)
        peak = {"slot": self.index, "pid": self.process.pid, "peak_rss_kb": self.peak_kb} if self.peak_kb else None
        self.conn.close()
        self.process = self.conn = None
        self.ready, self.peak_kb = False, 0
        return peak

    def ask_to_stop(self) -> None:
        """Tell its idle worker to exit (it may be gone already)."""
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass

    def exit_code(self) -> int | None:
        """Its dead worker's exit status (None: not known)."""
        if self.process is None:
            return None
        self.process.join(timeout=5)  # its pipe can close before it is reaped: wait for the exit status
        return self.process.exitcode

    def stop_hung(self) -> None:
        """Ask its hung worker for its Python stack (faulthandler writes it to the log), then kill it."""
        if hasattr(signal, "SIGUSR1"):
            try:
                os.kill(self.process.pid, signal.SIGUSR1)
                self.process.join(timeout=STACK_DUMP_WAIT)
            except (OSError, ValueError):
                pass
        self.process.kill()
        self.process.join(timeout=30)

    def log_tail(self, limit: int = 1500) -> str:
        """The end of its log since the current case began (``limit`` <= 0: up to 20,000 characters)."""
        try:
            with open(self.settings.log_path, encoding="utf-8", errors="replace") as fh:
                fh.seek(self.log_offset)
                return fh.read()[-20000:] if limit <= 0 else fh.read()[-limit:]
        except OSError:
            return ""

    # -- the pipe

    def waitables(self) -> list[Any]:
        """What ``multiprocessing.connection.wait`` wakes on for it: a message, or its process's end."""
        return [self.conn, self.process.sentinel]

    def receive(self) -> WorkerMessage:
        """The next message (EOFError or OSError: the worker is gone)."""
        return self.conn.recv()

    def drain(self) -> Iterator[WorkerMessage]:
        """The messages already sent (by a worker that died or was killed since)."""
        try:
            while self.conn is not None and self.conn.poll():
                yield self.conn.recv()
        except (EOFError, OSError):
            return

    # -- its case

    def assign(self, task: Task, timeout: float) -> None:
        self.task, self.step = task, None
        self.cases += 1
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        self.timing = (BUILD, self.started)
        try:
            self.log_offset = os.path.getsize(self.settings.log_path)
        except OSError:
            self.log_offset = 0
        self.conn.send(task.assignment())

    @property
    def building(self) -> bool:
        """Its task is being built: no step began yet (the deadline is the build limit)."""
        return self.task is not None and self.step is None and self.timing[0] == BUILD

    def begin(self, step: Step, timeout: float) -> tuple[str, float]:
        """The task began ``step``, with the whole time limit; gives the step that ended and its seconds."""
        self.step = step
        self.deadline = time.monotonic() + timeout
        return self.switch_timing(step.name)

    def switch_timing(self, following: str = "") -> tuple[str, float]:
        """Stop counting the step being timed (given back with its seconds); ``following`` (if any) starts now."""
        step, since = self.timing
        now = time.monotonic()
        self.timing = (following, now)
        return step, now - since

    def release(self) -> Task:
        """Its task ended, or was lost: the slot is free for another."""
        task = self.task
        assert task is not None
        task.seconds += time.monotonic() - self.started
        self.task, self.step, self.deadline = None, None, NEVER
        return task
