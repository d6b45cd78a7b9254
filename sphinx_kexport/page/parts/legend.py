"""The legend: one row per status that occurs on the page, with its meaning, then one per
dynamic-batch mark that occurs on it (none on a page without dynamic-batch results)."""

from __future__ import annotations

from docutils import nodes

from ...snapshot.vocabulary import status
from ..model import dynamic_batch
from ..model.page_model import PageModel
from ..model.words import status_meaning
from . import inline
from .simple_tables import simple_table


# torch.compile's status follows fullgraph=True (the compile-first criterion); the default compile's breaks are a note
DEFAULT_COMPILE_CELL = "yes, default compile: N breaks"
DEFAULT_COMPILE_MEANING = (
    "torch.compile: the status follows torch.compile(fn, fullgraph=True), which compiles the call as one graph "
    "and matches eager; the default torch.compile (without fullgraph=True) breaks it N times, which the Details "
    "column explains, with the torch._dynamo.config setting that removes the breaks there too where one does")


def build_legend(model: PageModel) -> nodes.table:
    rows = []
    for word in model.statuses_used:
        rows.append((["kexport-legend-row"], [inline.status_pill(word, status(word).label), status_meaning(word)]))
    if any(cell.compile_note for row in model.rows for cell in row.cells):
        rows.append((["kexport-legend-row"], [DEFAULT_COMPILE_CELL, DEFAULT_COMPILE_MEANING]))
    for word in model.dynamic_used:
        rows.append((["kexport-legend-row"], [inline.batch_mark(word, dynamic_batch.legend(word)),
                                                dynamic_batch.meaning(word)]))
    if model.dynamic_used:
        rows.append((["kexport-legend-row"], ["(no mark)", dynamic_batch.NO_MARK]))
    return simple_table(["Cell", "Meaning"], rows, [20, 80], ["kexport-legend"])
