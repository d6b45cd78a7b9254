"""One section per package, each holding its rows as ``kexport_table`` nodes.

A package with several sections (Kornia's geometry: transforms, camera, ...)
gets one sub-section per table; a package with one table gets none. Section
ids are ``export-support-<slug>`` so links to a package keep working from one
build to the next.
"""

from __future__ import annotations

from typing import Any, Callable

from docutils import nodes

from ..model.page_model import PackageGroup, PageModel
from ..model.payloads import column_payload, row_payload
from ..nodes import kexport_table
from . import inline
from .ids import assign_id, reserve_id

SECTION_ID_PREFIX = "export-support-"


def _lead(model: PageModel, group: PackageGroup) -> nodes.paragraph:
    """"N probed configurations. ONNX a / b, ... (supported / probed)." """
    para = nodes.paragraph(classes=["kexport-package-lead", f"kexport-pkg--{group.slug}"])
    para += inline.count("rows", group.counts.rows)
    para += nodes.Text(" probed configuration. " if group.counts.rows == 1 else " probed configurations. ")
    for i, (device, path) in enumerate(model.columns):
        key = f"{path}-{device}"
        para += nodes.Text((", " if i else "") + model.column_label(device, path) + " ")
        para += inline.count(key, group.counts.columns[key])
    para += nodes.Text(" (supported / probed).")
    return para


def _title(text: str) -> nodes.title:
    return nodes.title(text, text)


class SectionBuilder:
    """Builds the package sections of one page; ``row_suffix`` keeps row ids
    unique when a document holds more than one page."""

    def __init__(self, document: nodes.document, model: PageModel, row_suffix: str = "",
                 decorate: Callable[[Any, dict], None] | None = None):
        self.document = document
        self.model = model
        self.row_suffix = row_suffix
        # decorate(row, payload): adds optional keys (reason links, changes) to a row's payload.
        self.decorate = decorate
        self.columns = column_payload(model)
        self.section_ids: dict[str, str] = {}

    def _table(self, group: PackageGroup, table) -> kexport_table:
        node = kexport_table()
        node["table_id"] = reserve_id(self.document, node, f"kexport-table-{table.slug}")
        node["title"] = table.title
        node["package"] = group.package
        node["section"] = table.key
        node["columns"] = self.columns
        rows = []
        for row in table.rows:
            payload = row_payload(row)
            payload["id"] += self.row_suffix
            if self.decorate is not None:
                self.decorate(row, payload)
            rows.append(payload)
        node["rows"] = rows
        node["links"] = {}
        return node

    def build(self) -> list[nodes.section]:
        sections = []
        for group in self.model.groups:
            section = nodes.section(classes=["kexport-package"])
            self.section_ids[group.package] = assign_id(self.document, section, SECTION_ID_PREFIX + group.slug)
            section += _title(group.package)
            section += _lead(self.model, group)
            if len(group.tables) == 1:
                section += self._table(group, group.tables[0])
            else:
                for table in group.tables:
                    sub = nodes.section(classes=["kexport-package-section"])
                    # The "" section's slug is the package's own; "-operators" keeps it apart.
                    slug = table.slug if table.key else f"{table.slug}-operators"
                    assign_id(self.document, sub, SECTION_ID_PREFIX + slug)
                    sub += _title(table.title)
                    sub += self._table(group, table)
                    section += sub
            sections.append(section)
        return sections
