"""The reason index: every distinct failure reason, how often, where.

Reasons that differ only in names, numbers or shapes ("no ONNX lowering for
torch.linalg.svd" / "... for torch.histc") are one entry, worded by its most
frequent concrete text and one instance of it (operator and library line), with
its fix class (``snapshot.fix_classes``); the concrete text stays on each row.
Pure Python over the page model, shared by every builder.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ...snapshot.fix_classes import FixClass, class_of
from . import dynamic_batch
from .page_model import Cell, PageModel, Row

# Order matters: quoted text and paths first, so their insides are not
# rewritten piecemeal by the later rules.
_RULES = [
    (re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\""), "‹name›"),
    (re.compile(r"(?:[\w.-]*[A-Za-z][\w.-]*/)+[\w.-]+(?::\d+)?"), "‹path›"),
    # a single-module library's `where` has no folder: "fsim.py:241" is a path as much as "piq/fsim.py:241"
    (re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.py(?::\d+)?\b"), "‹path›"),
    (re.compile(r"torch\.Size\(\[[^\]]*\]\)|\((?:\s*-?\d+\s*,)+\s*-?\d*\s*\)|\[(?:\s*-?\d+\s*,)+\s*-?\d*\s*\]"),
     "‹shape›"),
    (re.compile(r"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+(?:\.\w+)*"), "‹name›"),  # aten::atan2, aten::add.Tensor
    (re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+\b"), "‹name›"),
    (re.compile(r"\b[A-Za-z]*_[\w]*\b"), "‹name›"),
    (re.compile(r"(?<=[A-Za-z])\d+\b"), "‹n›"),  # out0 / out1
    (re.compile(r"\b0x[0-9a-fA-F]+\b|[-+]?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b"), "‹n›"),
]
_SPACES = re.compile(r"\s+")

# Words that name a tool or a dtype: they are what a reason is about, not what varies between its
# instances ("onnx.checker rejects ..." is another reason than "onnxruntime cannot run ...", int64
# another than float32), so the rules above must not turn them into placeholders.
_KEPT = re.compile(
    r"\b(?:torch\.onnx\.export|torch\.onnx|torch\.export\.export|torch\.export|torch\.compile|torch\._dynamo"
    r"|onnx\.checker|onnxruntime|onnxscript|dynamo|inductor|fullgraph=True"
    r"|(?:torch\.)?(?:u?int(?:8|16|32|64)|float(?:16|32|64)|bfloat16|complex(?:32|64|128)|float8_\w+|bool))\b")
_KEEP_MARK = "\ue000"  # private-use characters: no rule above matches them


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """The reason with names, paths, shapes and numbers replaced by placeholders; tool and dtype names stay.

    Cached: a page repeats the same few reasons hundreds of times."""
    out = _SPACES.sub(" ", text).strip()
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return _KEEP_MARK + chr(0xE001 + len(kept) - 1)

    out = _KEPT.sub(keep, out)
    for pattern, placeholder in _RULES:
        out = pattern.sub(placeholder, out)
    return re.sub(_KEEP_MARK + "(.)", lambda m: kept[ord(m.group(1)) - 0xE001], out)


@lru_cache(maxsize=8192)
def reason_id(normalised: str) -> str:
    """A stable anchor for a normalised reason (same text -> same id, across builds)."""
    return "kx-reason-" + hashlib.sha1(normalised.encode("utf-8")).hexdigest()[:10]


@dataclass
class ReasonEntry:
    id: str
    text: str  # normalised, with placeholders
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


def failing_reasons(row: Row) -> Iterable[tuple[Cell, str, str]]:
    """(cell, concrete reason, its library line) for each failing cell of a row that says why, and for each
    supported cell that works only at the traced batch size or whose dynamic capture fails."""
    for cell in row.cells:
        if cell.result.failing and cell.result.detail.strip():
            yield cell, cell.result.detail.strip(), cell.result.where
        else:
            batch = dynamic_batch.reason(cell.result)
            if batch:
                yield cell, batch, cell.result.dynamic.where if cell.result.dynamic else ""


def _fix_class(cell: Cell, concrete: str) -> FixClass:
    """The class of the reason's cause, with the statement at its library line (the cell's own, or its dynamic
    result's)."""
    dynamic = cell.result.dynamic
    if concrete != cell.result.detail.strip() and dynamic is not None:
        return class_of(dynamic.cause, dynamic.where_code)
    return class_of(cell.result.cause, cell.result.where_code)


def build_index(model: PageModel) -> list[ReasonEntry]:
    """Entries most frequent first (ties: by text, for a stable order)."""
    entries: "OrderedDict[str, ReasonEntry]" = OrderedDict()
    for row in model.rows:
        if row.case.name in model.uncounted:  # another torch version's case: not in these figures
            continue
        label = row.case.operator + (f" [{row.case.variant}]" if row.case.variant else "")
        for cell, concrete, where in failing_reasons(row):
            norm = normalise(concrete)
            entry = entries.get(norm)
            if entry is None:
                entry = entries[norm] = ReasonEntry(reason_id(norm), norm)
            entry.per_column[cell.key] += 1
            entry._example_counts[concrete] += 1
            entry.classes[_fix_class(cell, concrete)] += 1
            if concrete not in entry.instances:
                entry.instances[concrete] = label + (f" ({where})" if where else "")
            if row.id not in entry.row_labels:
                entry.rows.append(row.id)
                entry.row_labels[row.id] = label
    for entry in entries.values():
        entry.examples = [text for text, _ in sorted(entry._example_counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return sorted(entries.values(), key=lambda e: (-e.total, e.text))


def row_reason_ids(model: PageModel) -> dict[str, dict[str, str]]:
    """row id -> {concrete reason -> reason entry id}, for linking a row's reason back to its entry."""
    links: dict[str, dict[str, str]] = {}
    for row in model.rows:
        if row.case.name in model.uncounted:  # another torch version's case: not in these figures
            continue
        for _, concrete, _ in failing_reasons(row):
            links.setdefault(row.id, {})[concrete] = reason_id(normalise(concrete))
    return links
