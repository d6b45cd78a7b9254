"""The legend: one row per status that occurs on the page, with its meaning, then one per
dynamic-batch mark that occurs on it (none on a page without dynamic-batch results)."""

from __future__ import annotations

from docutils import nodes

from ..model import dynamic_batch
from ..model.page_model import STATUS_MEANING, STATUS_TEXT, PageModel
from . import inline
from .simple_tables import simple_table


def build_legend(model: PageModel) -> nodes.table:
    rows = []
    for status in model.statuses_used:
        rows.append((["kexport-legend-row"], [inline.status_pill(status, STATUS_TEXT[status]),
                                                STATUS_MEANING[status]]))
    for status in model.dynamic_used:
        rows.append((["kexport-legend-row"], [inline.batch_mark(status, dynamic_batch.LEGEND_TEXT[status]),
                                                dynamic_batch.MEANING[status]]))
    if model.dynamic_used:
        rows.append((["kexport-legend-row"], ["(no mark)", dynamic_batch.NO_MARK]))
    return simple_table(["Cell", "Meaning"], rows, [20, 80], ["kexport-legend"])
