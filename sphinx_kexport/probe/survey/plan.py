"""Plan a survey: for every selected case and device, measure it, reuse a result, or record its skip.

A result is reused when its fingerprint is one this run accepts and every other "measure again?" key holds
(:mod:`..base.reuse`): first from the work directory of an interrupted run (the resume journal), then from the
previous snapshot (an unchanged case measures nothing). Each case it measures gets the reason why, as a
:class:`~..base.reuse.keys.Reason` (what ``--dry-run`` prints in words). Plain data in, plain data out: the parent
plans from the inventory, never from a built case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ...snapshot.result_records import skipped_results
from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import EAGER_DIGEST, PATHS
from ..base.code_digest import CodeCheck
from ..base.reuse.decide import PROBE_STAMP, Reusable, resume_verdict, snapshot_verdict
from ..base.reuse.keys import Reason, words
from ..base.reuse.own_code import measuring_code
from ..cases.inventory import InventoryCase
from ..run.pool import Task
from ..run.workdir import WorkDir

CellKey = tuple[str, str]  # (case name, device)


@dataclass
class Plan:
    tasks: list[Task] = field(default_factory=list)  # to measure, in inventory order
    measured: dict[CellKey, dict[str, Any]] = field(default_factory=dict)  # results known before anything runs
    stamps: dict[CellKey, dict[str, str]] = field(default_factory=dict)  # fingerprint and time of each result
    resumed: list[dict[str, Any]] = field(default_factory=list)  # results from the interrupted run's records
    resumed_cells: set[CellKey] = field(default_factory=set)  # their (case, device) cells
    cached: list[dict[str, Any]] = field(default_factory=list)  # results from the previous snapshot
    skips: list[tuple[InventoryCase, str]] = field(default_factory=list)  # (case, device) with skip=
    reasons: dict[CellKey, Reason] = field(default_factory=dict)  # why each task is measured
    last_seconds: dict[CellKey, float] = field(default_factory=dict)  # what measuring it took the last time

    @property
    def total(self) -> int:
        return len(self.tasks) + len(self.resumed) + len(self.cached) + len(self.skips)

    def extend(self, part: Plan) -> None:
        """Add the plan of more cases (a survey plans a module's cases as the module comes in)."""
        self.tasks += part.tasks
        self.measured.update(part.measured)
        self.stamps.update(part.stamps)
        self.resumed += part.resumed
        self.resumed_cells |= part.resumed_cells
        self.cached += part.cached
        self.skips += part.skips
        self.reasons.update(part.reasons)
        self.last_seconds.update(part.last_seconds)


def plan_survey(selected: list[InventoryCase], devices: list[str],
                keys: Callable[[InventoryCase, str], tuple[str, ...]], work: WorkDir | None,
                reusable: dict[str, dict[str, Reusable]], time_limit: float = float("inf"),
                code: CodeCheck | None = None, why_not: dict[str, Reason | None] | None = None,
                snapshot_cases: dict[str, set[str]] | None = None, speed: bool = False) -> Plan:
    """What to do with each (case, device). ``keys`` gives the fingerprints a case's results may carry (the
    first is the one this run stamps); ``reusable`` maps device -> case name -> what the snapshot holds
    (already without the timeouts of a smaller limit). An interrupted run's record with a path that ran
    past a smaller limit than ``time_limit`` is measured again too, as the snapshot's would be. ``code``
    checks the code a record ran (None: it is not checked, as for a record it does not list); ``why_not``
    says per device why none of the snapshot's results apply, ``snapshot_cases`` which cases the snapshot
    has results for on each device: both only word the reasons. ``speed``: a record without the speed pass's
    figures on a supported path is measured again (a record with them is reused by any run, figures kept)."""
    plan = Plan()
    for device in devices:
        cached = reusable.get(device, {})
        for case in selected:
            accepted = keys(case, device)
            cell = (case.name, device)
            if case.skip:
                plan.skips.append((case, device))
                plan.measured[cell] = skipped_results(case.skip)
                plan.stamps[cell] = _skip_stamp(plan.measured[cell], accepted[0], cached.get(case.name))
                continue
            record = None if work is None else next(
                filter(None, (work.finished_record(case.name, device, k) for k in accepted)), None)
            if record is not None and resume_verdict(record, time_limit, code, speed):
                record = None
            hit = cached.get(case.name)
            reason = None if hit is None else snapshot_verdict(hit, accepted, code, speed)
            if hit is not None:
                if hit.seconds is not None:
                    plan.last_seconds[cell] = hit.seconds
            if record is not None:
                plan.measured[cell] = record["results"]
                plan.stamps[cell] = _stamp(record["fingerprint"], str(record.get("measured_at") or utc_now()),
                                           record.get("code"), record.get("seconds"), record.get(EAGER_DIGEST),
                                           measuring_code())  # its fingerprint covers this probe code
                plan.resumed.append(record["results"])
                plan.resumed_cells.add(cell)
            elif hit is not None and not reason:
                plan.measured[cell] = hit.results
                plan.stamps[cell] = _stamp(hit.fingerprint, hit.measured_at, hit.code, hit.seconds, hit.eager,
                                           hit.probe)
                plan.cached.append(hit.results)
            else:
                plan.reasons[cell] = reason or _not_in_snapshot(case.name, device, why_not, snapshot_cases,
                                                                time_limit)
                plan.tasks.append(Task(case.name, case.module, case.local_name, device, accepted[0], list(PATHS),
                                       discovery=case.discovery, definition=case.definition,
                                       weight_bytes=case.weight_bytes))
    return plan


def _skip_stamp(results: dict[str, Any], fingerprint: str, hit: Reusable | None) -> dict[str, Any]:
    """A skip entry's stamp: the snapshot's own while it records the same skip (its time is when the skip was
    first recorded, so a rerun does not re-stamp it), else a new one."""
    if hit is not None and hit.fingerprint == fingerprint and hit.results == results:
        return {"fingerprint": fingerprint, "measured_at": hit.measured_at}
    return {"fingerprint": fingerprint, "measured_at": utc_now()}


def _stamp(fingerprint: str, measured_at: str, code: Any, seconds: Any, eager: Any = None,
           probe: str | None = None) -> dict[str, Any]:
    """A reused result's stamp: the code it ran goes in as the dict (the survey files it in its code table);
    the digest of its eager outputs as it was (a record of an older probe has none); the probe code that
    measured it."""
    stamp: dict[str, Any] = {"fingerprint": fingerprint, "measured_at": measured_at}
    if probe:
        stamp[PROBE_STAMP] = probe
    if isinstance(seconds, (int, float)):
        stamp["seconds"] = round(float(seconds), 1)
    if isinstance(code, dict):
        stamp["code"] = code
    if isinstance(eager, dict):
        stamp[EAGER_DIGEST] = dict(eager)
    return stamp


def _not_in_snapshot(name: str, device: str, why_not: dict[str, Reason | None] | None,
                     snapshot_cases: dict[str, set[str]] | None, time_limit: float) -> Reason:
    why = (why_not or {}).get(device)
    if why is not None:
        return why
    if snapshot_cases is not None and name in snapshot_cases.get(device, set()):
        return Reason("time-limit", {"limit": time_limit})
    return Reason("new-case")


def estimate(plan: Plan) -> dict[str, Any]:
    """What ``--dry-run`` says the run would take, as data (what its ``--stats`` writes): the cells it would
    measure, how many of them were measured before, and the worker-seconds those took the last time."""
    known = [plan.last_seconds[(t.name, t.device)] for t in plan.tasks if (t.name, t.device) in plan.last_seconds]
    return {"would_measure": [f"{t.name} [{t.device}]" for t in plan.tasks], "measured_before": len(known),
            "estimated_worker_seconds": round(sum(known), 1)}


def planned_lines(plan: Plan, snapshot_name: str) -> list[str]:
    """What ``--dry-run`` prints: each case the run would measure, why, and what it took the last time."""
    guess = estimate(plan)
    took = (f"; {guess['estimated_worker_seconds']:.0f} s of worker time the last time for the "
            f"{guess['measured_before']} measured before") if guess["measured_before"] else ""
    lines = [f"would measure {len(plan.tasks)} of {plan.total} (case, device) cells{took}:"]
    for task in plan.tasks:
        cell = (task.name, task.device)
        last = f" ({plan.last_seconds[cell]:.1f} s the last time)" if cell in plan.last_seconds else ""
        lines.append(f"  {task.name} [{task.device}]: {words(plan.reasons.get(cell, Reason('new-case')))}{last}")
    lines.append(f"would reuse {len(plan.cached)} unchanged since {snapshot_name} and {len(plan.resumed)} from the "
                 f"interrupted run, skip {len(plan.skips)}")
    lines.append("nothing was measured or written (--dry-run)")
    return lines
