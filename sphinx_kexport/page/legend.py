"""The legend: one row per status that occurs on the page, with its meaning."""

from __future__ import annotations

from docutils import nodes

from . import inline
from .model import STATUS_MEANING, STATUS_TEXT, PageModel
from .simple_tables import simple_table


def build_legend(model: PageModel) -> nodes.table:
    rows = []
    for status in model.statuses_used:
        rows.append((["kexport-legend-row"], [inline.status_pill(status, STATUS_TEXT[status]),
                                                STATUS_MEANING[status]]))
    return simple_table(["Cell", "Meaning"], rows, [20, 80], ["kexport-legend"])
