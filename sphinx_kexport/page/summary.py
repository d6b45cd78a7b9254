"""The summary by package: one row per package, linking to its section.

Every figure is a ``kexport-count`` element inside a row classed
``kexport-pkg--<slug>``, so the browser script can recount a package's row
when the reader filters.
"""

from __future__ import annotations

from docutils import nodes

from . import inline
from .model import PageModel
from .simple_tables import simple_table


def build_summary(model: PageModel, section_ids: dict[str, str]) -> nodes.table:
    """``section_ids`` maps a package name to the id of its section on this page."""
    columns = [(f"{p}-{d}", model.column_label(d, p)) for d, p in model.columns]
    header = ["Package", "Probed"] + [label for _, label in columns] + ["All paths"]
    rows = []
    for group in model.groups:
        link = nodes.reference("", "", nodes.Text(group.package), internal=True,
                               refid=section_ids[group.package])
        cells: list = [link, inline.count("rows", group.counts.rows)]
        cells += [inline.count(key, group.counts.columns[key]) for key, _ in columns]
        cells.append(inline.count("pass-all", group.counts.pass_all["all"]))
        rows.append((["kexport-summary-row", f"kexport-pkg--{group.slug}"], cells))
    widths = [30, 10] + [max(8, 50 // len(columns))] * len(columns) + [10]
    return simple_table(header, rows, widths, ["kexport-summary"])
