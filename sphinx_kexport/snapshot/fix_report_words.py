"""The fix report (:mod:`.fix_report`) for people and scripts: text for a terminal, Markdown for a pull
request's description or a job summary (every snapshot string escaped), JSON."""

from __future__ import annotations

import dataclasses
from typing import Any

from .diff import RULE_WORDS, Change
from .fix_report import AFTER, BEFORE, EagerCheck, FixReport, SpeedCell, SpeedPair
from .markdown import md_cell, md_table
from .vocabulary import DEVICE_LABELS, EAGER_CHANGED, EAGER_IDENTICAL, EAGER_NOT_COMPARABLE, PATH_LABELS, speed_size

IDENTICAL_LISTED = 20  # identical eager outputs named one by one up to this many, then counted
SPEED_HINT = "run the probe with --speed"
SPEED_HEAD = "speed (eager time / path time, above 1 the path is faster; its spread low–high)"


def verdict(report: FixReport) -> str:
    """Why the report passes or fails, in one line."""
    if report.passed:
        return (f"passed: {_count(len(report.fixed), 'cell')} fixed, {_count(report.breaks_removed, 'graph break')} "
                "removed, nothing regressed, no eager output changed")
    why = []
    if not (report.fixed or report.breaks_removed):
        why.append("nothing fixed and no graph break removed")
    if report.regressed:
        why.append(f"{_count(len(report.regressed), 'cell')} regressed")
    if report.eager_changed:
        why.append(f"eager output changed in {_count(len(report.eager_changed), 'case')}")
    return "failed: " + ", ".join(why)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _where(case: str, device: str, path: str = "") -> str:
    return f"{case} [{device}]" + (f" {PATH_LABELS.get(path, path)}" if path else "")


def eager_words(check: EagerCheck) -> str:
    """"identical", "changed", "not comparable: no digest after (...)", "not comparable: another torch (a, b)"."""
    if check.verdict != EAGER_NOT_COMPARABLE:
        return check.verdict
    if check.no_output:
        return f"{EAGER_NOT_COMPARABLE}: no eager output to digest (skipped, failed eagerly or returned no tensor)"
    if check.missing:
        return (f"{EAGER_NOT_COMPARABLE}: no digest {' or '.join(check.missing)} (measured by a probe that records "
                "none, or reused from such a record)")
    facts = [f"{fact} {getattr(check.before, fact)!s} -> {getattr(check.after, fact)!s}" for fact in check.differs]
    return f"{EAGER_NOT_COMPARABLE}: another {' and '.join(check.differs)} ({'; '.join(facts)})"


def figure_words(figure: dict[str, Any]) -> str:
    """"2.24× (1.56–2.88)": the ratio and its spread."""
    return f"{figure['ratio']:.2f}× ({figure['low']:.2f}–{figure['high']:.2f})"


def spread_words(pair: SpeedPair) -> str:
    if pair.overlap is None:
        return ""
    return "overlap (no clear change)" if pair.overlap else "apart"


def _side(cell: SpeedCell, side: str, figure: dict[str, Any] | None) -> str:
    if figure is not None:
        return figure_words(figure)
    if side in cell.untimed:
        return f"not timed {side} ({SPEED_HINT})"
    if side in cell.not_working:
        return f"nothing to time {side}: the path did not work"
    return f"not timed at this size {side}"


def speed_rows(cell: SpeedCell) -> list[tuple[str, str, str, str]]:
    """(inputs, before, after, spreads) per timing of a cell; one row without inputs when neither side timed it."""
    if not cell.pairs:
        return [("", _side(cell, BEFORE, None), _side(cell, AFTER, None), "")]
    return [(f"{speed_size(p.size, p.batch)} ({p.shapes})", _side(cell, BEFORE, p.before),
             _side(cell, AFTER, p.after), spread_words(p)) for p in cell.pairs]


def _change_note(change: Change) -> str:
    if change.kind == "regressed":
        why = change.new_detail
        if change.rule:
            why = RULE_WORDS[change.rule] + (f": {why}" if why else "")
        return why
    return ""


def _status(change: Change, side: str) -> str:
    status = (change.old_status if side == BEFORE else change.new_status) or "absent"
    breaks = change.old_breaks if side == BEFORE else change.new_breaks
    dynamic = change.old_dynamic if side == BEFORE else change.new_dynamic
    moved = change.old_status == change.new_status and change.old_breaks != change.new_breaks
    words = status + (f" ({breaks} breaks)" if moved else "")
    return words + (f", any batch: {dynamic}" if change.dynamic_changed else "")


def _eager_groups(report: FixReport) -> tuple[list[EagerCheck], list[EagerCheck]]:
    """(the checks listed one by one, the identical ones only counted): identical ones are named up to
    IDENTICAL_LISTED, then counted, so a report over a whole library stays readable."""
    identical = [e for e in report.eager if e.verdict == EAGER_IDENTICAL]
    others = [e for e in report.eager if e.verdict != EAGER_IDENTICAL]
    if len(identical) <= IDENTICAL_LISTED:
        return others + identical, []
    return others, identical


def _eager_counts(report: FixReport) -> str:
    counts = {v: sum(e.verdict == v for e in report.eager)
              for v in (EAGER_IDENTICAL, EAGER_CHANGED, EAGER_NOT_COMPARABLE)}
    return ", ".join(f"{n} {v}" for v, n in counts.items())


def text(report: FixReport, before: str, after: str) -> str:
    out = [f"fix report: {before} -> {after}"]
    for kind, group in (("fixed", report.fixed), ("regressed", report.regressed)):
        out.append(f"{kind} ({len(group)}):" if group else f"{kind}: none")
        out += [f"  {change.describe()}" for change in group]
    out.append(f"graph breaks of the default torch.compile: {report.breaks_before} -> {report.breaks_after} in all"
               f" (cells supported before and after), {report.breaks_removed} removed")
    out += [f"  {_where(b.case, b.device)}: {b.before} -> {b.after}" for b in report.breaks]
    listed, counted = _eager_groups(report)
    out.append(f"eager output ({len(report.eager)} case/device measured in both): {_eager_counts(report)}")
    out += [f"  {_where(e.case, e.device)}: {eager_words(e)}" for e in listed]
    if counted:
        out.append(f"  and {len(counted)} more identical")
    out.append(SPEED_HEAD + ":" if report.speed else f"{SPEED_HEAD}: no case to time (nothing fixed or changed)")
    for cell in report.speed:
        head = _where(cell.case, cell.device, cell.path)
        out += [f"  {head}" + (f" at {inputs}" if inputs else "") + f": {b} -> {a}" + (f", spreads {spread}" if spread else "")
                for inputs, b, a, spread in speed_rows(cell)]
    out.append(verdict(report))
    return "\n".join(out) + "\n"


def markdown(report: FixReport, before: str, after: str) -> str:
    """Tables for a pull request's description or ``$GITHUB_STEP_SUMMARY``."""
    out = ["### Fix report", "", f"{md_cell(before)} → {md_cell(after)}: **{md_cell(verdict(report))}**", ""]
    cells = [[md_cell(c.case), DEVICE_LABELS.get(c.device, md_cell(c.device)), PATH_LABELS.get(c.path, md_cell(c.path)),
              md_cell(_status(c, BEFORE)), md_cell(_status(c, AFTER)), c.kind, md_cell(_change_note(c))]
             for c in report.fixed + report.regressed]
    out += ["#### Cells fixed and regressed", ""]
    out += (md_table(["Case", "Device", "Path", "Before", "After", "Result", "Why"], cells) if cells
            else ["None."])
    out += ["", f"#### Graph breaks of the default torch.compile: {report.breaks_before} → {report.breaks_after} "
            f"({report.breaks_removed} removed)", ""]
    rows = [[md_cell(b.case), DEVICE_LABELS.get(b.device, md_cell(b.device)), str(b.before), str(b.after)]
            for b in report.breaks]
    out += md_table(["Case", "Device", "Before", "After"],
                    rows + [["**all**", "", str(report.breaks_before), str(report.breaks_after)]])
    listed, counted = _eager_groups(report)
    out += ["", f"#### Eager output: {_eager_counts(report)}", ""]
    rows = [[md_cell(e.case), DEVICE_LABELS.get(e.device, md_cell(e.device)), md_cell(eager_words(e))] for e in listed]
    if counted:
        rows.append([f"{len(counted)} more", "", EAGER_IDENTICAL])
    out += md_table(["Case", "Device", "Eager output"], rows) if rows else ["No case measured in both."]
    out += ["", f"#### {SPEED_HEAD[0].upper() + SPEED_HEAD[1:]}", ""]
    rows = []
    for cell in report.speed:
        head = [md_cell(cell.case), DEVICE_LABELS.get(cell.device, md_cell(cell.device)),
                PATH_LABELS.get(cell.path, md_cell(cell.path))]
        rows += [head + [md_cell(words) for words in row] for row in speed_rows(cell)]
    out += (md_table(["Case", "Device", "Path", "Inputs", "Before", "After", "Spreads"], rows) if rows
            else ["No case to time (nothing fixed or changed)."])
    return "\n".join(out) + "\n"


def as_json(report: FixReport, before: str, after: str) -> dict[str, Any]:
    """The report as data: every record's fields, the counts and the verdict."""
    return {"before": before, "after": after, "passed": report.passed, "verdict": verdict(report),
            "fixed": [dataclasses.asdict(c) for c in report.fixed],
            "regressed": [dataclasses.asdict(c) for c in report.regressed],
            "graph_breaks": {"before": report.breaks_before, "after": report.breaks_after,
                             "removed": report.breaks_removed, "cells": [dataclasses.asdict(b) for b in report.breaks]},
            "eager_output": [dataclasses.asdict(e) for e in report.eager],
            "speed": [dict(dataclasses.asdict(cell), pairs=[dict(dataclasses.asdict(p), overlap=p.overlap)
                                                            for p in cell.pairs]) for cell in report.speed]}
