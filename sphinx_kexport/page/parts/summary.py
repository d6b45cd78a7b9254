"""The summary by package: one row per package, linking to its section.

Every figure is a ``kexport-count`` element inside a row classed
``kexport-pkg--<slug>``, so the browser script can recount a package's row
when the reader filters.
"""

from __future__ import annotations

from docutils import nodes

from ...snapshot import DEVICE_LABELS, PATH_LABELS, PATHS
from ..model.page_model import PageModel
from . import inline
from .simple_tables import simple_table


def build_summary(model: PageModel, section_ids: dict[str, str], spanning: bool = True) -> nodes.table:
    """``section_ids`` maps a package name to the id of its section on this page.

    Columns go path by path; with several devices a path's title spans its
    device columns (as in the package tables), so the summary stays narrow
    enough for a desktop column. Without ``spanning`` (builders whose writers
    cannot span cells) each column has its own "path (device)" title. A page
    with dynamic-batch results has an "Any batch" column: supported cells that
    hold at any batch size / those checked.
    """
    probed = set(model.columns)
    columns = [(f"{p}-{d}", d, p) for p in PATHS for d in model.devices if (d, p) in probed]
    if model.multi_device and spanning:
        paths = [p for p in PATHS if any(path == p for _, _, path in columns)]
        header: list = [
            [("Package", 1, 2), ("Probed", 1, 2)]
            + [(PATH_LABELS[p], sum(path == p for _, _, path in columns), 1) for p in paths]
            + [("All paths", 1, 2)] + ([("Any batch", 1, 2)] if model.has_dynamic else []),
            [DEVICE_LABELS[d] for _, d, _ in columns],
        ]
    else:
        header = ["Package", "Probed"] + [model.column_label(d, p) for _, d, p in columns] + ["All paths"]
        header += ["Any batch"] if model.has_dynamic else []
    rows = []
    for group in model.groups:
        link = nodes.reference("", "", nodes.Text(group.package), internal=True,
                               refid=section_ids[group.package])
        cells: list = [link, inline.count("rows", group.counts.rows)]
        cells += [inline.count(key, group.counts.columns[key]) for key, _, _ in columns]
        cells.append(inline.count("pass-all", group.counts.pass_all["all"]))
        if model.has_dynamic:  # supported cells that hold at any batch size / those checked
            cells.append(inline.count("dyn", group.counts.batch.batch_text))
        rows.append((["kexport-summary-row", f"kexport-pkg--{group.slug}"], cells))
    widths = [30, 10] + [max(8, 50 // len(columns))] * len(columns) + [10] + ([10] if model.has_dynamic else [])
    return simple_table(header, rows, widths, ["kexport-summary"])
