"""Plan a survey: for every selected case and device, measure it, reuse a result, or record its skip.

A result is reused when its fingerprint is one this run accepts
(:func:`~..cases.fingerprint.reusable_keys`): first from the work directory of
an interrupted run (the resume journal), then from the previous snapshot (an
unchanged case measures nothing), unless a path ran past a smaller time limit
than this run's, or timed out "during start-up" (an older probe's record of a case
whose build ran past the limit: the operator never ran). Plain data in, plain data
out: the parent plans from the inventory, never from a built case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ...snapshot.result_records import to_measure_again, skipped_results
from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import PATHS
from ..cases.inventory import InventoryCase
from ..run.pool import Task
from ..run.workdir import WorkDir
from .reuse import Reusable

CellKey = tuple[str, str]  # (case name, device)


@dataclass
class Plan:
    tasks: list[Task] = field(default_factory=list)  # to measure, in inventory order
    measured: dict[CellKey, dict[str, Any]] = field(default_factory=dict)  # results known before anything runs
    stamps: dict[CellKey, dict[str, str]] = field(default_factory=dict)  # fingerprint and time of each result
    resumed: list[dict[str, Any]] = field(default_factory=list)  # results from the interrupted run's records
    cached: list[dict[str, Any]] = field(default_factory=list)  # results from the previous snapshot
    skips: list[tuple[InventoryCase, str]] = field(default_factory=list)  # (case, device) with skip=

    @property
    def total(self) -> int:
        return len(self.tasks) + len(self.resumed) + len(self.cached) + len(self.skips)

    def extend(self, part: Plan) -> None:
        """Add the plan of more cases (a survey plans a module's cases as the module comes in)."""
        self.tasks += part.tasks
        self.measured.update(part.measured)
        self.stamps.update(part.stamps)
        self.resumed += part.resumed
        self.cached += part.cached
        self.skips += part.skips


def plan_survey(selected: list[InventoryCase], devices: list[str],
                keys: Callable[[InventoryCase, str], tuple[str, ...]], work: WorkDir | None,
                reusable: dict[str, dict[str, Reusable]], time_limit: float = float("inf")) -> Plan:
    """What to do with each (case, device). ``keys`` gives the fingerprints a case's results may carry (the
    first is the one this run stamps); ``reusable`` maps device -> case name -> what the snapshot holds
    (already without the timeouts of a smaller limit). An interrupted run's record with a path that ran
    past a smaller limit than ``time_limit`` is measured again too, as the snapshot's would be."""
    plan = Plan()
    for device in devices:
        cached = reusable.get(device, {})
        for case in selected:
            accepted = keys(case, device)
            cell = (case.name, device)
            if case.skip:
                plan.skips.append((case, device))
                plan.measured[cell] = skipped_results(case.skip)
                plan.stamps[cell] = {"fingerprint": accepted[0], "measured_at": utc_now()}
                continue
            record = None if work is None else next(
                filter(None, (work.finished_record(case.name, device, k) for k in accepted)), None)
            if record is not None and to_measure_again(record["results"], time_limit):
                record = None
            hit = cached.get(case.name)
            if record is not None:
                plan.measured[cell] = record["results"]
                plan.stamps[cell] = {"fingerprint": record["fingerprint"],
                                     "measured_at": str(record.get("measured_at") or utc_now())}
                plan.resumed.append(record["results"])
            elif hit is not None and hit.fingerprint in accepted:
                plan.measured[cell] = hit.results
                plan.stamps[cell] = {"fingerprint": hit.fingerprint, "measured_at": hit.measured_at}
                plan.cached.append(hit.results)
            else:
                plan.tasks.append(Task(case.name, case.module, case.local_name, device, accepted[0], list(PATHS),
                                       discovery=case.discovery, definition=case.definition,
                                       weight_bytes=case.weight_bytes))
    return plan
