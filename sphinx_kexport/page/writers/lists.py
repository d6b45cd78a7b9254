"""The man and texinfo builders: each table becomes a bullet list (one item per row) when the
document is resolved, and their own writers write that.

Built as docutils nodes, so those writers do their own escaping.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..nodes import kexport_table
from .plain_words import cell_texts, reason_text, version_lines

LIST_FORMATS = ("man", "texinfo")


def row_item(row: dict, columns: list[dict]) -> nodes.list_item:
    para = nodes.paragraph()
    para += nodes.literal(row["operator"], row["operator"])
    if row["variant"]:
        variant = f"[{row['variant']}]"
        para += nodes.Text(" ")
        para += nodes.literal(variant, variant)
    statuses = "; ".join(f"{column['label']}: {text}" for column, text in zip(columns, cell_texts(row)))
    para += nodes.Text(" - " + statuses)
    item = nodes.list_item("", para)
    for text in [reason_text(row)] + version_lines(row, columns):
        if text:
            item += nodes.paragraph(text, text)
    return item


def row_list(node: kexport_table) -> nodes.bullet_list:
    listing = nodes.bullet_list(classes=["kexport-rows"])
    for row in node["rows"]:
        listing += row_item(row, node["columns"])
    return listing


def rows_as_lists(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """man and texinfo: each kexport_table becomes a bullet list before writing."""
    if app.builder.format not in LIST_FORMATS:
        return
    for table in list(doctree.findall(kexport_table)):
        table.replace_self(row_list(table))
