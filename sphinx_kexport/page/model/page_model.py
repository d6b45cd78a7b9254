"""The page model: what the page shows, computed once from a snapshot.

Everything every builder needs (grouping, row order, stable row ids, merged
failure reasons, counts) is decided here, in plain Python with no docutils,
so the HTML template, the text/LaTeX renditions and the browser script can
never disagree about a number. The words a status is said with are
``words``'; the plain data the doctree nodes carry is ``payloads``'.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from ...snapshot import DEVICE_LABELS, PATH_LABELS, PATHS, STATUSES, SUPPORTED, Case, Result, Snapshot
from ...snapshot.vocabulary import (COMPILE, DYNAMIC_ANSWERS, DYNAMIC_OK, FAILING, NOT_APPLICABLE, ONNX, OK_BREAKS,
                                    STAGE_EAGER, STAGE_SKIP, UNCOUNTED)
from . import dynamic_batch
from .words import EAGER_FAILURE, NOTHING_TO_CAPTURE, SKIPPED, default_compile_note, status_css, status_text


def slugify(text: str) -> str:
    """Lower-case, every run of non-alphanumerics -> '-', trimmed."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@dataclass(slots=True)
class Cell:
    device: str
    path: str
    result: Result

    @property
    def key(self) -> str:
        """``onnx-cpu``: the column key used by filters and the browser script."""
        return f"{self.path}-{self.device}"

    @property
    def text(self) -> str:
        return status_text(self.result)

    @property
    def compile_note(self) -> str:
        """What the default torch.compile does where fullgraph=True decided the status ("default compile: 2 breaks")."""
        return default_compile_note(self.result)

    @property
    def css(self) -> str:
        return status_css(self.result.status)

    @property
    def mark(self) -> str:
        """The dynamic-batch mark ("any batch", "batch 2 only", ...) or ""."""
        return dynamic_batch.mark(self.result, self.path)


@dataclass(slots=True)
class Detail:
    """One merged reason: the columns that share it, and the text."""

    labels: str
    text: str
    columns: tuple[str, ...]  # cell keys, e.g. ("onnx-cpu", "export-cpu")


@dataclass(slots=True)
class Row:
    id: str
    case: Case
    cells: list[Cell]
    details: list[Detail]
    stages: list[Detail]
    where: list[str]
    disagree: bool
    graph_breaks: dict[str, int]  # per device
    statements: dict[str, str] = field(default_factory=dict)  # where -> the statement there (where_code)

    @property
    def failing(self) -> bool:
        return any(c.result.failing for c in self.cells)

    @property
    def passes_all(self) -> bool:
        """Every probed cell is supported (n/a cells are not counted, as in the cards; a timeout is not known
        to pass, so it is not)."""
        probed = [c for c in self.cells if c.result.status != NOT_APPLICABLE]
        return bool(probed) and all(c.result.supported for c in probed)

    def cell(self, device: str, path: str) -> Cell:
        for c in self.cells:
            if c.device == device and c.path == path:
                return c
        raise KeyError((device, path))


@dataclass
class Tally:
    """Supported / probed for one column (path on a device); n/a and timeouts excluded."""

    supported: int = 0
    probed: int = 0
    any_batch: int = 0  # supported cells that hold at any batch size (dynamic ok)
    batch_checked: int = 0  # supported cells whose dynamic result answers (ok, static, fail)

    def add(self, result: Result) -> None:
        if result.status not in UNCOUNTED:
            self.probed += 1
            if result.status in SUPPORTED:
                self.supported += 1
        answer = dynamic_batch.answer(result)
        if answer is not None:
            self.batch_checked += 1
            self.any_batch += answer.status == DYNAMIC_OK

    def merge(self, other: "Tally") -> None:
        self.supported += other.supported
        self.probed += other.probed
        self.any_batch += other.any_batch
        self.batch_checked += other.batch_checked

    @property
    def batch_text(self) -> str:
        """"12 / 15": supported cells that hold at any batch size / those checked."""
        return f"{self.any_batch} / {self.batch_checked}" if self.batch_checked else "—"

    def __str__(self) -> str:
        return f"{self.supported} / {self.probed}" if self.probed else "—"


@dataclass
class Counts:
    columns: dict[str, Tally]  # keyed by cell key
    rows: int = 0
    pass_all: dict[str, int] = field(default_factory=dict)  # per device, plus "all"
    operators: int = 0
    onnx_operators: int = 0
    disagree: int = 0
    failing: int = 0
    breaks: int = 0
    static: int = 0  # rows with a cell that works only at the traced batch size

    @property
    def batch(self) -> Tally:
        """Every column together (for the dynamic-batch figures: any_batch / batch_checked)."""
        total = Tally()
        for tally in self.columns.values():
            total.merge(tally)
        return total


@dataclass
class Table:
    key: str
    title: str
    slug: str
    rows: list[Row]


@dataclass
class PackageGroup:
    package: str
    slug: str
    tables: list[Table]
    counts: Counts


@dataclass
class PageModel:
    snapshot: Snapshot
    devices: list[str]
    columns: list[tuple[str, str]]  # (device, path) in display order
    groups: list[PackageGroup]
    counts: Counts
    statuses_used: list[str]
    not_probed: list["NotProbed"]  # registered entries left out of the tables: every cell is n/a
    dynamic_used: list[str] = field(default_factory=list)  # dynamic statuses with a mark on the page
    uncounted: frozenset[str] = frozenset()  # case names shown but left out of the figures (``counted``)

    @property
    def has_dynamic(self) -> bool:
        """Some shown cell says whether it holds at any batch size (else the page renders as before)."""
        return bool(self.dynamic_used)

    @property
    def omitted(self) -> int:
        return len(self.not_probed)

    @property
    def multi_device(self) -> bool:
        return len(self.devices) > 1

    def column_label(self, device: str, path: str) -> str:
        label = PATH_LABELS[path]
        return f"{label} ({DEVICE_LABELS[device]})" if self.multi_device else label

    @property
    def rows(self) -> Iterable[Row]:
        for group in self.groups:
            for table in group.tables:
                yield from table.rows


def _merge(cells: list[Cell], devices: list[str], text_of) -> list[Detail]:
    """Group cells by identical text so a shared cause is named once.

    Labels read "ONNX, torch.export" on one device and "ONNX (CPU, CUDA),
    torch.export (CUDA)" when devices differ.
    """
    groups: "OrderedDict[str, list[Cell]]" = OrderedDict()
    for cell in cells:
        text = text_of(cell)
        if text:
            groups.setdefault(text, []).append(cell)
    merged = []
    for text, members in groups.items():
        parts = []
        for path in PATHS:
            devs = [c.device for c in members if c.path == path]
            if not devs:
                continue
            label = PATH_LABELS[path]
            if len(devices) > 1 and len(devs) < len(devices):
                label += " (" + ", ".join(DEVICE_LABELS[d] for d in devs) + ")"
            parts.append(label)
        merged.append(Detail(", ".join(parts), text, tuple(c.key for c in members)))
    return merged


def _detail_text(cell: Cell) -> str:
    return cell.result.detail.strip()


def _stage_text(cell: Cell) -> str:
    r = cell.result
    return r.stage if r.status in FAILING and r.stage else ""


def _disagree(cells: list[Cell], devices: list[str]) -> bool:
    if len(devices) < 2:
        return False
    for path in PATHS:
        kinds = {c.result.supported  # supported or failing: the uncounted are left out
                 for c in cells if c.path == path and c.result.status not in UNCOUNTED}
        if len(kinds) > 1:
            return True
    return False


def _row_ids(cases: list[Case]) -> dict[int, str]:
    """Stable ids from the case name; a clash gets -2, -3 in snapshot order."""
    ids: dict[int, str] = {}
    used: set[str] = set()
    for case in cases:
        base = "kx-" + (slugify(case.name) or "case")
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}-{n}"
        used.add(candidate)
        ids[case.index] = candidate
    return ids


def _counts(rows: list[Row], columns: list[tuple[str, str]], devices: list[str]) -> Counts:
    counts = Counts(columns={f"{p}-{d}": Tally() for d, p in columns}, rows=len(rows))
    operators: set[tuple[str, str]] = set()
    onnx_ops: set[tuple[str, str]] = set()
    for device in devices + ["all"]:
        counts.pass_all[device] = 0
    for row in rows:
        for cell in row.cells:
            counts.columns[cell.key].add(cell.result)
        op = row.case.operator_key
        operators.add(op)
        if any(c.result.supported for c in row.cells if c.path == ONNX):
            onnx_ops.add(op)
        for device in devices:
            probed = [c for c in row.cells if c.device == device and c.result.status != NOT_APPLICABLE]
            if probed and all(c.result.supported for c in probed):  # a timeout is not known to pass
                counts.pass_all[device] += 1
        if row.passes_all:
            counts.pass_all["all"] += 1
        counts.disagree += row.disagree
        counts.failing += row.failing
        counts.breaks += any(c.result.status == OK_BREAKS for c in row.cells)
        counts.static += any(dynamic_batch.holds_only_at_traced_batch(c.result) for c in row.cells)
    counts.operators = len(operators)
    counts.onnx_operators = len(onnx_ops)
    return counts


def _no_counts(rows: list[Row], columns: list[tuple[str, str]], devices: list[str]) -> Counts:
    return Counts(columns={f"{p}-{d}": Tally() for d, p in columns})


def section_title(package: str, key: str, titles: Mapping[str, Mapping[str, str]]) -> str:
    explicit = titles.get(package, {}).get(key)
    if explicit:
        return explicit
    if not key:
        return "Operators"
    return key.replace("_", " ").replace(".", " / ").capitalize()


@dataclass
class NotProbed:
    case: Case
    kind: str
    reason: str
    where: str


def not_probed_entry(case: Case, cells: list["Cell"]) -> NotProbed:
    """The kind and reason of an entry whose every cell is n/a (the first cell that says why)."""
    explained = next((c.result for c in cells if c.result.detail or c.result.stage), cells[0].result)
    if explained.stage == STAGE_SKIP:
        kind = SKIPPED
    elif explained.stage == STAGE_EAGER:  # format 2 says it as a field (snapshot/upgrade.py reads format 1's words)
        kind = EAGER_FAILURE
    else:
        kind = NOTHING_TO_CAPTURE
    return NotProbed(case=case, kind=kind, reason=explained.detail, where=explained.where)


def build_model(snapshot: Snapshot, *, packages: list[str] | None = None, devices: list[str] | None = None,
                package_order: list[str] = (), section_titles: Mapping[str, Mapping[str, str]] | None = None,
                counted: Callable[[Case], bool] | None = None, id_cases: list[Case] | None = None,
                tally: bool = True) -> PageModel:
    """Group, order and count the snapshot's cases for rendering.

    ``packages`` restricts the page to those packages (in that order);
    ``devices`` to those devices. Package order: ``package_order`` first,
    then the others in order of first appearance in the snapshot. Sections:
    "" first, then order of first appearance. Rows: by operator, then
    variant. A row whose every cell is n/a is left out. ``counted``: which
    rows the figures count (default all; a page across torch versions counts
    the newest version's cases, ``version_history``). ``id_cases``: the
    cases the row ids are made from (default the snapshot's; one torch
    version's model takes the page's, so that its rows keep the page's ids).
    ``tally=False`` leaves every count at zero (a model read only for its
    rows, such as an older torch version's reason index: counting is most of
    the model's time).
    """
    section_titles = section_titles or {}
    count = _counts if tally else _no_counts
    devs = [d for d in snapshot.devices if devices is None or d in devices]
    columns = [(d, p) for d in devs for p in PATHS]
    ids = _row_ids(snapshot.cases if id_cases is None else id_cases)

    by_package: "OrderedDict[str, OrderedDict[str, list[Row]]]" = OrderedDict()
    not_probed: list[NotProbed] = []
    unmeasured = set(snapshot.missing)
    used: set[str] = set()
    dynamic_used: set[str] = set()
    for case in snapshot.cases:
        if packages is not None and case.package not in packages:
            continue
        cells = [Cell(d, p, case.result(d, p)) for d, p in columns]
        if all(c.result.status == NOT_APPLICABLE for c in cells):
            if case.name in unmeasured and not any(d in case.results for d in devs):
                continue  # not measured at all (an --only run, a missing shard): said above the figures, not "n/a"
            not_probed.append(not_probed_entry(case, cells))
            continue
        where: list[str] = []
        statements: dict[str, str] = {}
        for c in cells:
            if c.result.where and c.result.where not in where:
                where.append(c.result.where)
            if c.result.where and c.result.where_code:
                statements.setdefault(c.result.where, c.result.where_code)
        for c in cells:
            answer = dynamic_batch.answer(c.result)
            if answer is not None:
                dynamic_used.add(answer.status)
                if answer.status != DYNAMIC_OK and answer.where and answer.where not in where:
                    where.append(answer.where)
                if answer.status != DYNAMIC_OK and answer.where and answer.where_code:
                    statements.setdefault(answer.where, answer.where_code)
        row = Row(
            id=ids[case.index], case=case, cells=cells,
            details=_merge(cells, devs, _detail_text) + _merge(cells, devs, lambda c: dynamic_batch.reason(c.result)),
            stages=_merge(cells, devs, _stage_text), where=where, statements=statements,
            disagree=_disagree(cells, devs),
            graph_breaks={d: case.result(d, COMPILE).graph_breaks for d in devs},
        )
        used.update(c.result.status for c in cells)
        by_package.setdefault(case.package, OrderedDict()).setdefault(case.section, []).append(row)

    order = [p for p in (packages or package_order) if p in by_package]
    order += [p for p in by_package if p not in order]
    groups = []
    for package in order:
        sections = by_package[package]
        keys = ([""] if "" in sections else []) + [k for k in sections if k != ""]
        tables = []
        for key in keys:
            rows = sorted(sections[key], key=lambda r: (r.case.operator.lower(), r.case.variant))
            title = section_title(package, key, section_titles)
            tables.append(Table(key, title, slugify(f"{package}-{key}") if key else slugify(package), rows))
        all_rows = [r for t in tables for r in t.rows if counted is None or counted(r.case)]
        groups.append(PackageGroup(package, slugify(package), tables, count(all_rows, columns, devs)))
    every_shown = [r for g in groups for t in g.tables for r in t.rows]
    every_row = [r for r in every_shown if counted is None or counted(r.case)]
    return PageModel(
        snapshot=snapshot, devices=devs, columns=columns, groups=groups,
        counts=count(every_row, columns, devs), statuses_used=[s for s in STATUSES if s in used],
        not_probed=not_probed, dynamic_used=[s for s in DYNAMIC_ANSWERS if s in dynamic_used],
        uncounted=frozenset(r.case.name for r in every_shown if counted is not None and not counted(r.case)),
    )
