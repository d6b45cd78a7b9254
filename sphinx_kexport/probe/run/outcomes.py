"""Where what the workers find goes: each finished case's records into the work directory the moment it ends,
each device's environment, the survey's callbacks, and what a lost worker costs its case."""

from __future__ import annotations

from typing import Any, Callable

from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import EAGER_DIGEST, PATHS
from ..cases.step import Step
from ..measure.locate import LibraryRoot
from .losses import lose_step
from .task import Task
from .workdir import WorkDir


class Outcomes:
    def __init__(self, work: WorkDir, root: LibraryRoot, *, on_start: Callable[[Task], None] = lambda t: None,
                 on_finish: Callable[[Task], None] = lambda t: None, on_note: Callable[[str], None] = lambda s: None,
                 on_unbuilt: Callable[[Task, str], None] = lambda t, why: None, dynamic: bool = False):
        self.work = work
        self.dynamic = dynamic  # the run has the dynamic-batch pass: a lost speed pass takes it along
        self.root = root  # the surveyed library: where a lost worker was is said in its files
        self.started, self.on_finish, self.on_note = on_start, on_finish, on_note
        self.not_built = on_unbuilt  # a case its worker could not build: nothing measured, nothing recorded

    def environment(self, device: str, environment: dict[str, Any]) -> None:
        self.work.save_environment(device, environment)

    def finished(self, task: Task) -> None:
        ordered = {path: task.results[path] for path in PATHS}
        # its time and memory travel with the record, so an interrupted run still says which case cost what
        self.work.save(task.name, task.device, task.fingerprint, ordered, seconds=round(task.seconds, 3),
                       peak_rss_kb=task.peak_rss_kb, began_rss_kb=task.began_rss_kb, measured_at=utc_now(),
                       **({"code": task.code} if task.code is not None else {}),
                       **({EAGER_DIGEST: task.eager} if task.eager is not None else {}))
        self.on_finish(task)

    def lost(self, task: Task, step: Step | None, why: str, log: str, timed_out_after: float = 0.0) -> bool:
        """Its worker died (``why``), or ran past the time limit, inside ``step``: record what that costs and
        say so. True when paths are left to measure (in a fresh worker); else the case is finished."""
        detail = lose_step(task, step, why, log, self.root, timed_out_after, dynamic=self.dynamic)
        self.on_note(f"{task.name} [{task.device}]: {detail}")
        if not task.paths:
            self.finished(task)
        return bool(task.paths)
