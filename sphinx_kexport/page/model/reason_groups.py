"""The reason index: every distinct failure reason, how often, where.

A failure whose cause the probe named (a cause record: its class id and fields, ``snapshot.causes``) is grouped
by that record, whatever its words; one from an older snapshot, whose cause was read from its words, by its
words with names, numbers and shapes replaced by placeholders (``snapshot.legacy_reason_words``: "no ONNX
lowering for torch.linalg.svd" / "... for torch.histc" are one entry). Each entry is worded by its most
frequent concrete text and one instance of it (operator and library line), with its fix class
(``snapshot.fix_classes``); the concrete text stays on each row. Pure Python over the page model, shared by
every builder.
"""

from __future__ import annotations

import hashlib
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ...snapshot.causes import Cause
from ...snapshot.fix_classes import FIX_CLASS, FixClass, class_of
from ...snapshot.legacy_reason_words import normalise
from . import dynamic_batch
from .page_model import Cell, PageModel, Row

@lru_cache(maxsize=8192)
def reason_id(normalised: str) -> str:
    """A stable anchor for a normalised reason (same text -> same id, across builds)."""
    return "kx-reason-" + hashlib.sha1(normalised.encode("utf-8")).hexdigest()[:10]


def _group(cause: Cause | None, concrete: str) -> tuple[str, str, bool]:
    """(the key an entry is found by, its text, whether by a cause record): the cause the probe named, its id
    and fields (the text: its class's title and the fields); else the words with placeholders."""
    if cause is None or cause.from_words:
        return normalise(concrete), normalise(concrete), False
    fields = ", ".join(f for f in (cause.operator, cause.setting) if f)
    title = FIX_CLASS[cause.id].title if cause.id in FIX_CLASS else cause.id
    return "\0cause\0" + "\0".join(cause.record().values()), title + (f" ({fields})" if fields else ""), True


@dataclass
class ReasonEntry:
    id: str
    text: str  # normalised, with placeholders; or the cause record's class and fields (by_cause)
    by_cause: bool = False  # grouped by the cause record the probe named, not by words
    examples: list[str] = field(default_factory=list)  # distinct concrete texts, most frequent first
    per_column: Counter = field(default_factory=Counter)  # cell key -> count
    rows: list[str] = field(default_factory=list)  # row ids, page order
    row_labels: dict[str, str] = field(default_factory=dict)  # row id -> "operator [variant]"
    instances: dict[str, str] = field(default_factory=dict)  # concrete text -> "operator (library line)", first met
    classes: Counter = field(default_factory=Counter)  # FixClass -> cells
    _example_counts: Counter = field(default_factory=Counter, repr=False)

    @property
    def total(self) -> int:
        return sum(self.per_column.values())

    @property
    def example(self) -> str:
        """The most frequent concrete text: what the index shows instead of the placeholders."""
        return self.examples[0] if self.examples else self.text

    @property
    def instance(self) -> str:
        """One concrete instance of the most frequent text: its operator and library line."""
        return self.instances.get(self.example, "")

    @property
    def fix_classes(self) -> list[FixClass]:
        """Its classes, most cells first (one, unless the same words need another fix on another path)."""
        return [c for c, _ in sorted(self.classes.items(), key=lambda kv: -kv[1])]


@dataclass(frozen=True)
class FailingReason:
    """One failing cell's reason: its words, library line, cause record and that cause's class (with the
    statement at the line: the cell's own, or its dynamic result's)."""

    cell: Cell
    concrete: str
    where: str
    cause: Cause | None
    fix_class: FixClass


def failing_reasons(row: Row) -> Iterable[FailingReason]:
    """Each failing cell of a row that says why, and each supported cell that works only at the traced batch
    size or whose dynamic capture fails."""
    for cell in row.cells:
        result = cell.result
        if result.failing and result.detail.strip():
            yield FailingReason(cell, result.detail.strip(), result.where, result.cause,
                                class_of(result.cause, result.where_code))
        else:
            batch = dynamic_batch.reason(result)
            if batch and result.dynamic is not None:
                dynamic = result.dynamic
                yield FailingReason(cell, batch, dynamic.where, dynamic.cause,
                                    class_of(dynamic.cause, dynamic.where_code))
            elif batch:
                yield FailingReason(cell, batch, "", None, class_of(None))


def build_index(model: PageModel) -> list[ReasonEntry]:
    """Entries most frequent first (ties: by text, for a stable order)."""
    entries: "OrderedDict[str, ReasonEntry]" = OrderedDict()
    for row in model.rows:
        if row.case.name in model.uncounted:  # another torch version's case: not in these figures
            continue
        label = row.case.operator + (f" [{row.case.variant}]" if row.case.variant else "")
        for reason in failing_reasons(row):
            key, text, by_cause = _group(reason.cause, reason.concrete)
            entry = entries.get(key)
            if entry is None:
                entry = entries[key] = ReasonEntry(reason_id(key), text, by_cause)
            concrete = reason.concrete
            entry.per_column[reason.cell.key] += 1
            entry._example_counts[concrete] += 1
            entry.classes[reason.fix_class] += 1
            if concrete not in entry.instances:
                entry.instances[concrete] = label + (f" ({reason.where})" if reason.where else "")
            if row.id not in entry.row_labels:
                entry.rows.append(row.id)
                entry.row_labels[row.id] = label
    for entry in entries.values():
        entry.examples = [text for text, _ in sorted(entry._example_counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return sorted(entries.values(), key=lambda e: (-e.total, e.text))


def row_reason_ids(model: PageModel) -> dict[str, dict[str, str]]:
    """row id -> {concrete reason -> reason entry id}, for linking a row's reason back to its entry (a row's
    detail joins the cells of the same words: the words of two causes link to the first cell's)."""
    links: dict[str, dict[str, str]] = {}
    for row in model.rows:
        if row.case.name in model.uncounted:  # another torch version's case: not in these figures
            continue
        for reason in failing_reasons(row):
            key = _group(reason.cause, reason.concrete)[0]
            links.setdefault(row.id, {}).setdefault(reason.concrete, reason_id(key))
    return links
