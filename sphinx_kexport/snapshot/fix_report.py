"""The fix report: what a compile fix did, from the snapshots measured before and after it.

The compile-first workflow's discipline for a fix: remove graph breaks, keep eager output byte-identical,
time it before and after. Over the two snapshots (format-2 dicts, as :func:`~.files.read_snapshot` gives
them) :func:`fix_report` gathers, as records:

* the cells fixed and the cells regressed, under the compile-first gate's rules (:func:`.diff.compare` with
  every rule: ``ok-breaks -> ok`` is a fix, ``ok -> ok-breaks`` and more default-compile breaks regress);
* the default torch.compile's graph breaks per case and device, where the cell is supported before and
  after (a cell fixed or regressed is counted there instead), with the totals;
* per case and device measured in both, whether the eager outputs' digest (``measured[device].eager``) is
  identical, changed, or not comparable (a digest missing, or computed by another torch or machine kind);
* the speed figures (``--speed``) of the cases the fix touched, matched by what they timed, before and after.

:attr:`FixReport.passed` is the command's verdict. Pure Python, no torch; the words are in
:mod:`.fix_report_words`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator

from .diff import GATE_RULES, Change, compare, compared_devices, renamed, speed_figures, spreads_overlap
from .eager_change import EagerStamp, differing, stamp_of
from .vocabulary import (COMPILE, EAGER_CHANGED, EAGER_IDENTICAL, EAGER_NOT_COMPARABLE, PATHS, STAGE_EAGER,
                         STAGE_NO_TENSOR, STAGE_SKIP, SUPPORTED)

BEFORE, AFTER = "before", "after"  # the two sides, as a record names them


@dataclass(frozen=True)
class BreakCount:
    """The default torch.compile's graph breaks of one case on one device, before and after."""

    case: str
    device: str
    before: int
    after: int


@dataclass(frozen=True)
class EagerCheck:
    """Whether one case's eager output on one device kept its digest (vocabulary.EAGER_VERDICTS)."""

    case: str
    device: str
    verdict: str
    missing: tuple[str, ...] = ()  # the sides (BEFORE, AFTER) that record no digest
    #: every side without a digest has no eager output to digest: skipped, failed eagerly or returned no tensor
    no_output: bool = False
    differs: tuple[str, ...] = ()  # the facts (eager_change.EAGER_FACTS) that differ between the sides' digests
    before: EagerStamp | None = None  # the stamps as read (digest, torch, machine), None when absent
    after: EagerStamp | None = None


@dataclass(frozen=True)
class SpeedPair:
    """One timing (size, batch, shapes) of a path, before and after; a side is None where it has no figure."""

    size: str
    batch: int | None
    shapes: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    @property
    def overlap(self) -> bool | None:
        """Whether the two spreads overlap (the change is within the noise); None without both figures."""
        if self.before is None or self.after is None:
            return None
        return spreads_overlap(self.before, self.after)


@dataclass(frozen=True)
class SpeedCell:
    """The speed figures of one case, device and path, before and after."""

    case: str
    device: str
    path: str
    pairs: tuple[SpeedPair, ...]
    untimed: tuple[str, ...]  # the sides where the path works but the run timed nothing (no --speed)
    not_working: tuple[str, ...]  # the sides where the path did not work, so there is nothing to time


@dataclass(frozen=True)
class FixReport:
    fixed: tuple[Change, ...]
    regressed: tuple[Change, ...]
    breaks: tuple[BreakCount, ...]  # the cells whose count moved
    breaks_before: int  # over every cell supported before and after
    breaks_after: int
    eager: tuple[EagerCheck, ...]
    speed: tuple[SpeedCell, ...]

    @property
    def breaks_removed(self) -> int:
        """The graph breaks the fix removed, cell by cell (a cell that broke more often regressed)."""
        return sum(b.before - b.after for b in self.breaks if b.after < b.before)

    @property
    def eager_changed(self) -> tuple[EagerCheck, ...]:
        return tuple(e for e in self.eager if e.verdict == EAGER_CHANGED)

    @property
    def passed(self) -> bool:
        """A fix: a cell fixed or a graph break removed, nothing regressed and no comparable eager output moved."""
        return bool(self.fixed or self.breaks_removed) and not self.regressed and not self.eager_changed


def unknown_cases(before: dict[str, Any], after: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The ``names`` neither snapshot has a case of."""
    known = {c["name"] for data in (before, after) for c in data.get("cases", [])}
    return [name for name in names if name not in known]


def only_cases(before: dict[str, Any], after: dict[str, Any],
               names: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both snapshots with only the cases ``names`` (a case renamed between them kept under either name)."""
    wanted = set(names)
    pairs = renamed(before, after)
    old_names = wanted | {old for old, new in pairs.items() if new in wanted}
    new_names = wanted | {new for old, new in pairs.items() if old in wanted}
    return (dict(before, cases=[c for c in before.get("cases", []) if c["name"] in old_names]),
            dict(after, cases=[c for c in after.get("cases", []) if c["name"] in new_names]))


def _both(before: dict[str, Any], after: dict[str, Any],
          devices: list[str]) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(name, device, before's case, after's case) for every case both measured on a device, in the after
    snapshot's order; a renamed case under its new name."""
    pairs = renamed(before, after)
    old = {pairs.get(c["name"], c["name"]): c for c in before.get("cases", [])}
    for case in after.get("cases", []):
        was = old.get(case["name"])
        if was is None:
            continue
        for device in devices:
            if device in was.get("results", {}) and device in case.get("results", {}):
                yield case["name"], device, was, case


def _path(case: dict[str, Any], device: str, path: str) -> dict[str, Any]:
    return case["results"][device].get(path) or {}


_NO_EAGER_OUTPUT = frozenset({STAGE_EAGER, STAGE_SKIP, STAGE_NO_TENSOR})


def _ran_no_eager_output(case: dict[str, Any], device: str) -> bool:
    """Whether every path of the case on ``device`` stopped before any output existed to digest."""
    results = (case.get("results") or {}).get(device) or {}
    return bool(results) and all(r.get("stage") in _NO_EAGER_OUTPUT for r in results.values() if isinstance(r, dict))


def eager_check(name: str, device: str, before: dict[str, Any], after: dict[str, Any]) -> EagerCheck:
    """Compare one case's eager digests on ``device`` (``before``, ``after``: the two cases)."""
    cases = {BEFORE: before, AFTER: after}
    stamps = {side: stamp_of(case, device) for side, case in cases.items()}
    a, b = stamps[BEFORE], stamps[AFTER]
    if a is None or b is None:
        missing = tuple(side for side, stamp in stamps.items() if stamp is None)
        no_output = all(_ran_no_eager_output(cases[side], device) for side in missing)
        return EagerCheck(name, device, EAGER_NOT_COMPARABLE, missing=missing, no_output=no_output, before=a, after=b)
    differs = differing(a, b)
    if differs:
        return EagerCheck(name, device, EAGER_NOT_COMPARABLE, differs=differs, before=a, after=b)
    verdict = EAGER_IDENTICAL if a.digest == b.digest else EAGER_CHANGED
    return EagerCheck(name, device, verdict, before=a, after=b)


def speed_cell(name: str, device: str, path: str, before: dict[str, Any], after: dict[str, Any]) -> SpeedCell:
    """The figures of one path result before and after (``before``, ``after``: the path results)."""
    figures = {BEFORE: speed_figures(before), AFTER: speed_figures(after)}
    keys = list(figures[AFTER]) + [key for key in figures[BEFORE] if key not in figures[AFTER]]
    pairs = tuple(SpeedPair(key[0], key[1], key[2], figures[BEFORE].get(key), figures[AFTER].get(key))
                  for key in keys)
    working = {BEFORE: before.get("status") in SUPPORTED, AFTER: after.get("status") in SUPPORTED}
    untimed = tuple(side for side in (BEFORE, AFTER) if working[side] and not figures[side])
    not_working = tuple(side for side in (BEFORE, AFTER) if not working[side])
    return SpeedCell(name, device, path, pairs, untimed, not_working)


def fix_report(before: dict[str, Any], after: dict[str, Any], devices: Iterable[str] | None = None,
               cases: Iterable[str] | None = None) -> FixReport:
    """What the fix between ``before`` and ``after`` did (see the module's docstring).

    ``cases`` limits the report to those cases (:func:`only_cases`), and its speed figures cover them all;
    without it they cover the cases with a cell fixed or regressed or a graph-break count moved.
    """
    if cases is not None:
        before, after = only_cases(before, after, cases)
    devices = compared_devices(before, after, devices)
    # the speed section compares the figures with their spreads: the cell lines leave them out
    changes = [replace(c, speed=()) for c in compare(before, after, devices, GATE_RULES, vanished=True)]
    fixed = tuple(c for c in changes if c.kind == "fixed")
    regressed = tuple(c for c in changes if c.kind == "regressed")
    breaks, totals = [], [0, 0]
    eager, speed = [], []
    both = list(_both(before, after, devices))
    for name, device, was, case in both:
        a, b = _path(was, device, COMPILE), _path(case, device, COMPILE)
        if a.get("status") in SUPPORTED and b.get("status") in SUPPORTED:
            count = BreakCount(name, device, int(a.get("graph_breaks", 0)), int(b.get("graph_breaks", 0)))
            totals[0] += count.before
            totals[1] += count.after
            if count.before != count.after:
                breaks.append(count)
        eager.append(eager_check(name, device, was, case))
    touched = ({c["name"] for c in after.get("cases", [])} if cases is not None
               else {c.case for c in fixed + regressed} | {b.case for b in breaks})
    for name, device, was, case in both:
        if name in touched:
            speed += [cell for path in PATHS
                      if (cell := speed_cell(name, device, path, _path(was, device, path), _path(case, device, path)))
                      .pairs or cell.untimed]
    return FixReport(fixed, regressed, tuple(breaks), totals[0], totals[1], tuple(eager), tuple(speed))
