"""A result record (one path of one case on one device), built in one place for every writer.

``{"status", "detail", "stage", "where"}`` plus what a path adds (``graph_breaks``
for torch.compile, ``dynamic`` for the dynamic-batch pass, ``seconds`` in the
work records). The probe's measurements, its worker pool and its survey all
build records with the functions here; the schema checks them.
"""

from __future__ import annotations

from typing import Any

from .causes import CAUSE, Cause
from .fix_classes import UNCLASSIFIED
from .vocabulary import (COMPILE, DYNAMIC_FAIL, DYNAMIC_TIMEOUT, FAIL, MISMATCH, NOT_APPLICABLE, OK_BREAKS, PATHS,
                         SPEED_FASTER, SPEED_SLOWER, SPEED_UNCLEAR, STAGE_EAGER, STAGE_PROCESS, STAGE_SKIP,
                         SUPPORTED, TIMEOUT, SpeedVerdict)


def result(status: str, detail: str = "", stage: str = "", where: str = "", **extra: Any) -> dict[str, Any]:
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


# a worker that died says nothing of which class its failure is
LOST_WORKER = Cause(UNCLASSIFIED)


def timed_out(detail: str, where: str, limit: float) -> dict[str, Any]:
    """A path that ran past the time limit: not known, so neither supported nor failing."""
    return result(TIMEOUT, detail, STAGE_PROCESS, where, time_limit=limit)


def process_lost(detail: str, where: str, timed_out_after: float = 0.0) -> dict[str, Any]:
    """A path whose worker died (``fail``) or ran past the time limit of ``timed_out_after`` seconds
    (``timeout``) while it ran: stage ``process``."""
    if timed_out_after:
        return timed_out(detail, where, timed_out_after)
    return result(FAIL, detail, STAGE_PROCESS, where, **{CAUSE: LOST_WORKER.record()})


def dynamic_result(status: str, detail: str = "", where: str = "", traced: int = 0, other: int = 0,
                   **extra: Any) -> dict[str, Any]:
    """A supported path's ``dynamic`` record: what its dynamic-batch pass found, with the batch sizes it traced
    and ran at when it got that far."""
    out: dict[str, Any] = {"status": status, "detail": detail, "where": where}
    if traced:
        out.update(traced_batch=traced, run_batch=other)
    return {**out, **extra}


def dynamic_pass_lost(detail: str, where: str, timed_out_after: float = 0.0) -> dict[str, Any]:
    """The ``dynamic`` result of a path whose dynamic-batch pass its worker died in (``fail``) or ran past
    the time limit of ``timed_out_after`` seconds in (``timeout``); the path keeps its static result."""
    if timed_out_after:
        return dynamic_result(DYNAMIC_TIMEOUT, detail, where, time_limit=timed_out_after)
    lost: dict[str, Any] = {CAUSE: LOST_WORKER.record()}
    return dynamic_result(DYNAMIC_FAIL, detail, where, **lost)


def speed_figure(size: str, shapes: str, eager_s: float, path_s: float, low: float, high: float,
                 batch: int = 0) -> dict[str, Any]:
    """One timing of a path against eager at one size: medians in seconds, the ratio eager/path (> 1: the path
    is faster) and its spread (``low``..``high``), and the verdict they give."""
    figure: dict[str, Any] = {"size": size, "shapes": shapes}
    if batch:
        figure["batch"] = batch
    ratio = eager_s / path_s if path_s > 0 else 0.0
    figure.update(eager_s=eager_s, path_s=path_s, ratio=round(ratio, 3), low=round(low, 3), high=round(high, 3),
                  verdict=speed_verdict_of(low, high))
    return figure


def speed_verdict_of(low: float, high: float) -> SpeedVerdict:
    """Faster or slower only when the whole spread of the ratio lies on that side of 1.0."""
    if low > 1.0:
        return SPEED_FASTER
    if high < 1.0:
        return SPEED_SLOWER
    return SPEED_UNCLEAR


def speed_record(threads: int, figures: list[dict[str, Any]], note: str = "", untraced: bool = True,
                 **extra: Any) -> dict[str, Any]:
    """A supported path's ``speed``: the thread count it was timed with, its figures (none when timing failed),
    and a note on what was not timed and why; ``untraced``: no line tracer was on while its figures were timed
    (the speed pass looks; a record that says false is measured again by the next --speed run)."""
    out: dict[str, Any] = {"threads": threads, "figures": figures, "untraced": untraced}
    if note:
        out["note"] = note
    return {**out, **extra}


def speed_missing(results: dict[str, dict[str, Any]]) -> bool:
    """Whether a supported path of a case's records has no ``speed`` (a record measured without --speed)."""
    return any(record.get("status") in SUPPORTED and "speed" not in record for record in results.values())


def speed_traced(results: dict[str, dict[str, Any]]) -> bool:
    """Whether a supported path's ``speed`` was timed with a line tracer on, or by an older probe that left the
    code watch's on beside onnxruntime and the exported module (eager read a median 1.5 times too slow there in
    the kornia refresh, so those speed-ups are too large): a ``--speed`` run measures such a case again."""
    return any(record.get("status") in SUPPORTED and isinstance(record.get("speed"), dict)
               and not record["speed"].get("untraced") for record in results.values())


def speed_of_constants(results: dict[str, dict[str, Any]]) -> bool:
    """Whether a supported path's ``speed`` has a figure timed with no tensor input (its shapes empty): an
    older probe timed such a case, whose captured program may return constants computed at capture (ONNX's
    optimiser folds them: one read 4,955 times faster than eager), so a ``--speed`` run measures it again."""
    return any(record.get("status") in SUPPORTED and isinstance(record.get("speed"), dict)
               and any(not figure.get("shapes") for figure in record["speed"].get("figures") or [])
               for record in results.values())


def measured_under_smaller_limit(results: dict[str, dict[str, Any]], limit: float) -> bool:
    """Whether a case's records hold a timeout (of a path or of its dynamic-batch pass) under a limit
    smaller than ``limit``: such a case is measured again rather than reused."""
    for record in results.values():
        for part in (record, record.get("dynamic") or {}):
            if part.get("status") == TIMEOUT and float(part.get("time_limit", 0)) < limit:
                return True
    return False


# how a worker's death or hang before any step began reads in a record's detail ("... during start-up"); older
# probe versions counted building the case as start-up, so such a timeout was the build's, not the operator's:
# measured again, never reused
START_UP = "start-up"


def timed_out_in_start_up(results: dict[str, dict[str, Any]]) -> bool:
    """Whether a case's records hold a timeout "during start-up": the case was never run (its build ran past
    the limit, which older probe versions recorded as every path's timeout). Measured again."""
    return any(record.get("status") == TIMEOUT and f"during {START_UP}" in str(record.get("detail", ""))
               for record in results.values())


def to_measure_again(results: dict[str, dict[str, Any]], limit: float) -> bool:
    """Whether a case's records are measured again rather than reused: a timeout under a smaller limit than
    ``limit``, or one "during start-up" (:func:`timed_out_in_start_up`)."""
    return measured_under_smaller_limit(results, limit) or timed_out_in_start_up(results)


def before_fullgraph_rule(results: dict[str, dict[str, Any]]) -> bool:
    """Whether a case's torch.compile record predates the compile-first rule (it has no ``fullgraph`` field) and
    has a status that rule may change: ``ok-breaks`` (fullgraph=True may compile it: then ``ok``), a mismatch or
    a failure of the compile itself. Such a case is measured again; an ``ok`` record (one graph, no break) reads
    the same under both rules and is reused."""
    record = results.get(COMPILE) or {}
    return ("fullgraph" not in record and record.get("status") in (OK_BREAKS, MISMATCH, FAIL)
            and record.get("stage") not in (STAGE_EAGER, STAGE_PROCESS, STAGE_SKIP))


def with_breaks(path: str, record: dict[str, Any]) -> dict[str, Any]:
    """torch.compile's record always says how many graph breaks it had (0 when it never ran)."""
    return dict(record, graph_breaks=record.get("graph_breaks", 0)) if path == COMPILE else record


def skipped_results(reason: str) -> dict[str, dict[str, Any]]:
    """The records of a ``skip=`` case: n/a on every path, nothing run."""
    return {path: with_breaks(path, result(NOT_APPLICABLE, reason, STAGE_SKIP)) for path in PATHS}


def eager_failure(results: dict[str, dict[str, Any]]) -> str:
    """The reason when the eager run stopped the case before any path (n/a at stage eager), else "". A case
    that ran and returned no tensor (n/a at stage no-tensor, not probed) did not fail: its code ran."""
    if results and all(r.get("status") == NOT_APPLICABLE and r.get("stage") == STAGE_EAGER
                       for r in results.values()):
        return next(iter(results.values())).get("detail", "") or "no reason recorded"
    return ""
