"""Each (case, device) cell of a survey as it is learnt: planned, resumed or reused, measured by a worker,
not built, or left at --stop-after; with the stamps, timings and code sets the snapshot and --stats write."""

from __future__ import annotations

from typing import Any, Callable

from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import EAGER_DIGEST, PATHS
from ..base.code_digest import code_set_id
from ..base.reuse.decide import PROBE_STAMP
from ..base.reuse.own_code import measuring_code
from ..cases.inventory import InventoryCase
from ..run.pool import Task
from ..run.progress import Progress
from .plan import CellKey, Plan


class Cells:
    """The cells' ledger; the runner's thread calls :meth:`take`, :meth:`finished` and :meth:`not_built`."""

    def __init__(self, progress: Progress, plan_cases: Callable[[list[InventoryCase]], Plan], reused_from: str):
        self.progress, self.plan_cases, self.reused_from = progress, plan_cases, reused_from
        self.plan = Plan()
        self.planned: set[str] = set()
        self.seconds: dict[str, float] = {}
        self.case_memory: dict[str, int] = {}
        self.case_began: dict[str, int] = {}  # what the case's worker held when it began
        self.measured: dict[CellKey, dict[str, Any]] = {}
        self.fresh: set[CellKey] = set()  # of those, the ones this run's workers measured
        self.stamps: dict[CellKey, dict[str, Any]] = {}  # fingerprint, time, code set of each result
        # (case, device) -> why its worker could not build it: a probe error, so no status is recorded and
        # no earlier result is carried over for it (the snapshot says it is missing)
        self.unbuilt: dict[CellKey, str] = {}
        self.stopped: set[CellKey] = set()  # cells --stop-after left unmeasured (written as missing)
        self.code_sets: dict[str, dict[str, str]] = {}  # set id -> {ref: digest}: the snapshot's code table
        self.build_code: dict[str, dict[str, str]] = {}  # case name -> what building it ran (measure/build_watch.py)

    def take(self, cases: list[InventoryCase], final: bool = False) -> list[Task]:
        """Plan ``cases`` (those not planned yet) and give the tasks to measure; the rest is counted now.
        ``final``: no case comes after these."""
        fresh = [case for case in cases if case.name not in self.planned]
        self.planned.update(case.name for case in fresh)
        part = self.plan_cases(fresh)
        self.plan.extend(part)
        self.measured.update(part.measured)
        self.stamps.update(part.stamps)
        for case in fresh:
            self.build_code[case.name] = case.build_code
        for (name, _), stamp in part.stamps.items():  # a record resumed from the work directory carries its code
            code: Any = stamp.get("code")
            if isinstance(code, dict):
                stamp["code"] = self.code_set(self._with_build(name, code))
        self.progress.total += part.total
        self.progress.resumed(len(part.resumed), part.resumed)
        self.progress.reused(len(part.cached), part.cached, self.reused_from)
        self.progress.final = final
        for case, device in part.skips:
            self.progress.finished(case.name, device, part.measured[(case.name, device)], 0.0, measured=False)
        return part.tasks

    def finished(self, task: Task) -> None:
        results: dict[str, dict[str, Any]] = {path: task.results[path] for path in PATHS}
        self.measured[(task.name, task.device)] = results
        self.fresh.add((task.name, task.device))
        stamp: dict[str, Any] = {"fingerprint": task.fingerprint, "measured_at": utc_now(),
                                 "seconds": round(task.seconds, 1), PROBE_STAMP: measuring_code()}
        if task.code is not None:
            stamp["code"] = self.code_set(self._with_build(task.name, task.code))
        if task.eager is not None:
            stamp[EAGER_DIGEST] = dict(task.eager)
        self.stamps[(task.name, task.device)] = stamp
        key = f"{task.name} [{task.device}]"  # how --stats names a case on a device
        self.seconds[key] = round(task.seconds, 3)
        self.case_memory[key] = task.peak_rss_kb
        self.case_began[key] = task.began_rss_kb
        self.progress.finished(task.name, task.device, results, task.seconds)

    def not_built(self, task: Task, why: str) -> None:
        self.unbuilt[(task.name, task.device)] = why
        self.progress.not_built(task.name, task.device, why)

    def _with_build(self, name: str, code: dict[str, str]) -> dict[str, str]:
        """What the case's cell ran, and what building the case ran (measure/build_watch.py): a result is reused
        only while both are unchanged. A record from before build watching gets its build code here, as it is
        now."""
        return {**self.build_code.get(name, {}), **code}

    def code_set(self, code: dict[str, str]) -> str:
        """The id of ``code`` in the snapshot's code table (added when new)."""
        key = code_set_id(code)
        self.code_sets.setdefault(key, dict(sorted(code.items())))
        return key

    def left(self, selected: list[InventoryCase], devices: list[str]) -> set[CellKey]:
        """The cells not measured when the runner stopped: every task it had, queued or running, was planned (a
        requeued one too), and selected cases handed over after it stopped were never planned."""
        done = set(self.measured) | set(self.unbuilt)
        left = {(task.name, task.device) for task in self.plan.tasks} - done
        left |= {(case.name, device) for case in selected if case.name not in self.planned for device in devices}
        return left
