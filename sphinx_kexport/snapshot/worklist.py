"""Where to fix first: the library lines ranked by what they block.

A cell a line blocks is one the line (its ``where``) makes red for a maintainer: a failing cell, a
torch.compile cell where ``torch.compile(fn, fullgraph=True)`` fails (the compile-first workflow's test; the
default compile's breaks on a cell that fullgraph=True compiles are not its rows), and a supported cell that holds only
at the traced batch size or whose capture with a
dynamic batch fails (the dynamic result's ``where``). Lines are ranked per path by the distinct operators
they block, then by cells; each carries its fix class (:mod:`.fix_classes`, the most frequent among its
cells) and the operators. Cells that name no library line are counted, not ranked.

Over several snapshots (one per torch version), each version is ranked on its own, newest first, and a line
of an older version says whether it still blocks in the newest. ``probe worklist`` prints it as markdown or
CSV, the page's ``:worklist:`` option as a table. Standard library only.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from .csv_table import spreadsheet_safe
from .causes import Cause
from .fix_classes import FixClass, class_of
from .markdown import md_cell as _md
from .records import Case, Result, Snapshot
from .vocabulary import COMPILE, DYNAMIC_FAIL, DYNAMIC_STATIC, OK_BREAKS, PATH_LABELS, PATHS

OPERATORS_LISTED = 8  # operators named in a markdown cell; the rest are counted


@dataclass(frozen=True)
class Blocked:
    """One cell a library line blocks, and the words of its cause."""

    case: Case
    device: str
    path: str
    where: str
    text: str
    fix_class: FixClass
    code: str = ""  # the statement at where (``where_code``; empty in older snapshots)

    @property
    def operator(self) -> tuple[str, str]:
        return self.case.package, self.case.operator


@dataclass
class Line:
    """One library line on one path, and what it blocks."""

    where: str
    path: str
    operators: dict[tuple[str, str], Case] = field(default_factory=dict)  # (package, operator) -> its first case
    cell_keys: set = field(default_factory=set)  # (case, device): a cell red for two reasons at one line counts once
    classes: Counter[FixClass] = field(default_factory=Counter)
    texts: Counter[str] = field(default_factory=Counter)
    code: str = ""  # the statement at the line, as the probe read it ("" when no cell recorded it)

    @property
    def cells(self) -> int:
        return len(self.cell_keys)

    @property
    def fix_class(self) -> FixClass:
        """The most frequent class among its cells (ties: the class listed first in the records)."""
        return max(self.classes, key=lambda c: self.classes[c])

    @property
    def example(self) -> str:
        """The most frequent cause, as the probe worded it."""
        return min(self.texts, key=lambda t: (-self.texts[t], t))

    @property
    def operator_names(self) -> list[str]:
        return [operator for _, operator in self.operators]

    @property
    def key(self) -> tuple[str, str]:
        return self.where, self.path


def _red(result: Result, path: str) -> Iterator[tuple[str, str, str, Cause | None]]:
    """(where, cause text, the statement there, the cause record) for each reason a cell is red."""
    if result.failing:
        yield result.where, result.detail, result.where_code, result.cause
    elif path == COMPILE and result.supported and fullgraph_fails(result):
        yield result.where, result.detail, result.where_code, result.cause
    dynamic = result.dynamic
    if result.supported and dynamic is not None and dynamic.status in (DYNAMIC_STATIC, DYNAMIC_FAIL):
        yield dynamic.where, dynamic.detail, dynamic.where_code, dynamic.cause


def fullgraph_fails(result: Result) -> bool:
    """A supported torch.compile cell that the compile-first workflow must fix: ``fullgraph=True`` fails there
    (``ok-breaks``, or a random operator's with breaks). A cell that ``fullgraph=True`` compiles is not one,
    whatever the default compile's breaks; older snapshots, which do not record ``fullgraph``, by their breaks."""
    if result.fullgraph:
        return False
    return result.status == OK_BREAKS or bool(result.graph_breaks or result.skipped_functions)


def blocked_cells(snapshot: Snapshot) -> Iterator[Blocked]:
    for case in snapshot.cases:
        for device, paths in case.results.items():
            for path in PATHS:
                result = paths.get(path)
                if result is None:
                    continue
                for where, text, code, cause in _red(result, path):
                    text = " ".join(text.split())
                    yield Blocked(case, device, path, where.strip(), text, class_of(cause, code), code)


@dataclass
class Ranking:
    """One snapshot's lines, ranked; ``unlocated``: red cells that name no library line."""

    torch: str
    source: str
    lines: list[Line]
    unlocated: int

    def keys(self) -> set[tuple[str, str]]:
        return {line.key for line in self.lines}


def rank(snapshot: Snapshot, torch: str = "") -> Ranking:
    lines: dict[tuple[str, str], Line] = {}
    unlocated = 0
    for cell in blocked_cells(snapshot):
        if not cell.where:
            unlocated += 1
            continue
        line = lines.setdefault((cell.where, cell.path), Line(cell.where, cell.path))
        line.operators.setdefault(cell.operator, cell.case)
        line.cell_keys.add((cell.case.name, cell.device))
        line.classes[cell.fix_class] += 1
        line.texts[cell.text] += 1
        line.code = line.code or cell.code
    path_order: dict[str, int] = {p: i for i, p in enumerate(PATHS)}
    ordered = sorted(lines.values(), key=lambda line: (-len(line.operators), -line.cells, path_order[line.path],
                                                       line.where))
    return Ranking(torch, snapshot.source, ordered, unlocated)


def rank_versions(snapshots: Sequence[tuple[str, Snapshot]]) -> list[Ranking]:
    """(torch version, snapshot) per version, in any order -> their rankings, newest first (the caller orders
    the versions: ``torch_versions.version_key``)."""
    return [rank(snapshot, torch) for torch, snapshot in snapshots]


# -- the text forms: markdown and CSV, ready for an issue tracker


def _code(text: str) -> str:
    return f"<code>{_md(text)}</code>"


def _operators_md(line: Line) -> str:
    names = line.operator_names
    shown = ", ".join(_md(n) for n in names[:OPERATORS_LISTED])
    return shown + (f" and {len(names) - OPERATORS_LISTED} more" if len(names) > OPERATORS_LISTED else "")


def _still(line: Line, newest: Ranking) -> str:
    return "yes" if line.key in newest.keys() else "no"


def markdown(rankings: Sequence[Ranking], top: int | None = None) -> str:
    """One table per torch version, newest first; an older version's lines say whether they still block in
    the newest."""
    newest = rankings[0]
    out: list[str] = []
    for ranking in rankings:
        older = ranking is not newest
        title = f"torch {ranking.torch}" if ranking.torch else ranking.source
        out.append(f"### Where to fix first: {_md(title)}")
        out.append("")
        head = ["#", "Library line", "Path", "Operators", "Cells", "Class", "Fix", "Operators blocked"]
        if older:
            head.append(f"Still blocks in torch {_md(newest.torch)}")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for number, line in enumerate(ranking.lines[:top], 1):
            fix = line.fix_class
            where = _code(line.where) + (f" {_code(line.code)}" if line.code else "")
            cells = [str(number), where, PATH_LABELS[line.path], str(len(line.operators)),
                     str(line.cells), _md(fix.title), _md(fix.fix) + f" (e.g. {_md(line.example)})",
                     _operators_md(line)]
            if older:
                cells.append(_still(line, newest))
            out.append("| " + " | ".join(cells) + " |")
        shown = len(ranking.lines[:top])
        rest = len(ranking.lines) - shown
        notes = [f"{shown} of {len(ranking.lines)} lines" if rest else f"{len(ranking.lines)} lines"]
        if ranking.unlocated:
            notes.append(f"{ranking.unlocated} red cells name no library line (the page's reason index lists them)")
        out.append("")
        out.append("; ".join(notes) + ".")
        out.append("")
    return "\n".join(out)


CSV_COLUMNS = ("torch", "rank", "where", "code", "path", "operators", "cells", "class", "fix", "example",
               "operator_names", "still_blocks_in_newest")


def csv_text(rankings: Sequence[Ranking], top: int | None = None) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    newest = rankings[0]
    for ranking in rankings:
        for number, line in enumerate(ranking.lines[:top], 1):
            writer.writerow([spreadsheet_safe(v) for v in (
                ranking.torch, str(number), line.where, line.code, line.path, str(len(line.operators)), str(line.cells),
                str(line.fix_class), line.fix_class.fix, line.example, "; ".join(line.operator_names),
                "" if ranking is newest else _still(line, newest))])
    return out.getvalue()
