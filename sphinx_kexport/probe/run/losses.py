"""What a worker's death or hang costs the case it was measuring: the step it was in, recorded, not the case.

A death in the eager run costs every path still to measure; one inside a path costs that path (stage
``process``: ``fail`` for a death, ``timeout`` for the limit); one inside a path's dynamic-batch pass costs
only that path's ``dynamic`` result, one inside its speed pass (``--speed``) only its ``speed``. What is left
of the case runs in a fresh worker. A case its worker did not build (within the build limit,
:func:`not_built_in_time`, or at all) costs nothing recorded: it never ran, so no path has a status, and the
next run tries again.
"""

from __future__ import annotations

from ...snapshot.result_records import (START_UP, dynamic_pass_lost, dynamic_result, process_lost, speed_record,
                                        with_breaks)
from ...snapshot.vocabulary import COMPILE, DYNAMIC_NOT_APPLICABLE, EXPORT, ONNX, PATHS, STAGE_EAGER, SUPPORTED
from ..cases.step import Step
from ..measure.busy_with import busy_with
from ..measure.locate import LibraryRoot, where_text
from .task import Task

STEP_LABELS = {STAGE_EAGER: "the eager reference", ONNX: "the ONNX export", EXPORT: "torch.export",
               COMPILE: "torch.compile", None: START_UP}


def lose_step(task: Task, step: Step | None, why: str, log: str, root: LibraryRoot,
              timed_out_after: float = 0.0, dynamic: bool = False) -> str:
    """The worker died (``why``), or ran past the time limit (``timed_out_after`` seconds), inside ``step``
    (None: before the case began): record what is lost in ``task.results``, leave in ``task.paths`` what is
    still to measure, and give the detail recorded. ``log``: the worker's log since the case began.
    ``dynamic``: the run has the dynamic-batch pass, which comes after a path's speed pass and so goes with it."""
    where = where_text(log, root, innermost_first=True)
    doing = busy_with(log, root)  # "" when the library's own code was running (where names it)
    then = f"; {doing}" if doing else ""
    if step is not None and step.dynamic and step.path in task.results:
        detail = f"{why} during the dynamic-batch pass of {STEP_LABELS[step.path]}{then}"
        task.results[step.path] = dict(task.results[step.path],
                                       dynamic=dynamic_pass_lost(detail, where, timed_out_after))
        task.paths = [p for p in task.paths if p not in task.results]
        return detail
    if step is not None and step.speed and step.path in task.results:
        detail = f"{why} during the speed pass of {STEP_LABELS[step.path]}{then}"
        record = dict(task.results[step.path], speed=speed_record(0, [], detail))
        if dynamic and record.get("status") in SUPPORTED and "dynamic" not in record:
            # not a verdict on the batch: the pass never ran (kornia's SOLD2_detector[doc] lost it this way)
            record["dynamic"] = dynamic_result(DYNAMIC_NOT_APPLICABLE, f"not probed: {detail}, before the "
                                                                       "dynamic-batch pass")
        task.results[step.path] = record
        task.paths = [p for p in task.paths if p not in task.results]
        return detail
    name = step.name if step is not None else None
    detail = f"{why} during {STEP_LABELS.get(name, name)}{then}"
    failed = process_lost(detail, where, timed_out_after)
    pending = [p for p in task.paths if p not in task.results]
    # a crash before any path started (eager, start-up) takes the whole case; else only that path
    lost = [step.path] if step is not None and not step.after_result and step.path in PATHS else pending
    for path in lost:
        task.results[path] = with_breaks(path, dict(failed))
    task.paths = [p for p in pending if p not in lost]
    return detail


def not_built_in_time(limit: float, log: str, root: LibraryRoot) -> str:
    """Why a case was not measured when its worker did not build it within the build limit (``limit``
    seconds): not a status of the operator, which never ran. ``log``: the worker's log since the case began."""
    where = where_text(log, root, innermost_first=True)
    at = f" (it was at {where.splitlines()[0]})" if where else ""
    return (f"could not be built in time: building the case (from the discovery cache, or its one example or test "
            f"run again) took more than the build limit of {limit:g} s{at}. No status is recorded and the next "
            "run tries again; raise --build-timeout if building it takes this long")
