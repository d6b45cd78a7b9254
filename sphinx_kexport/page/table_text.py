"""The text builder's tables: aligned columns written directly.

A docutils table of a thousand rows takes minutes in the text builder, so
the rows are written as text: path over device when there are several
devices, reasons on an indented line below.
"""

from __future__ import annotations

import textwrap
from typing import Any

from docutils import nodes

from .nodes import kexport_table
from .table_plain import cell_texts, operator_label, reason_text

OPERATOR_WIDTH = 36  # longer names get a line of their own
TEXT_WIDTH = 78


def _text_headers(columns: list[dict]) -> list[list[str]]:
    """One header line, or two (path over device) when there are several devices."""
    devices = {column["device"] for column in columns}
    if len(devices) == 1:
        return [["Operator"] + [column["path_label"] for column in columns]]
    return [["Operator"] + [column["path_label"] for column in columns],
            [""] + [column["device_label"] for column in columns]]


def text_lines(node: kexport_table) -> list[str]:
    headers = _text_headers(node["columns"])
    rows = node["rows"]
    labels = [operator_label(row) for row in rows]
    op_width = min(OPERATOR_WIDTH, max([len(headers[0][0])] + [len(label) for label in labels]))
    widths = [op_width] + [
        max([len(header[i + 1]) for header in headers] + [len(cell_texts(row)[i]) for row in rows])
        for i in range(len(node["columns"]))
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()

    lines = [line(header) for header in headers] + [line(["=" * w for w in widths])]
    for row, label in zip(rows, labels):
        cells = cell_texts(row)
        if len(label) > op_width:
            lines.append(label)
            lines.append(line([""] + cells))
        else:
            lines.append(line([label] + cells))
        reason = reason_text(row)
        if reason:
            lines += textwrap.wrap(reason, TEXT_WIDTH, initial_indent="    ", subsequent_indent="    ",
                                   break_long_words=False, break_on_hyphens=False)
    return lines


def visit_table_text(self: Any, node: kexport_table) -> None:
    self.new_state(0)
    self.add_text("\n".join(text_lines(node)))
    self.end_state(wrap=False)
    raise nodes.SkipNode
