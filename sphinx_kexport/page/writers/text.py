"""The text builder's writer: the tables as aligned columns, and the API badge strips.

A docutils table of a thousand rows takes minutes in the text builder, so
the rows are written as text: path over device when there are several
devices, reasons on an indented line below.
"""

from __future__ import annotations

import textwrap
from functools import lru_cache
from typing import Any

from docutils import nodes

from ..model import badge_summary
from ..model.badge_summary import Summary
from ..nodes import kexport_badges, kexport_table
from .plain_words import also_names, cell_texts, operator_label, reason_text, version_lines

OPERATOR_WIDTH = 36  # longer names get a line of their own
TEXT_WIDTH = 78
BADGE_WIDTH = 64  # the text writer's 70 columns, less the indent of an entry's content


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
        also = also_names(row, node.get("named") or {})
        for text in [f"also: {', '.join(also)}" if also else "", reason_text(row),
                     *version_lines(row, node["columns"])]:
            if text:
                lines += textwrap.wrap(text, TEXT_WIDTH, initial_indent="    ", subsequent_indent="    ",
                                       break_long_words=False, break_on_hyphens=False)
    return lines


def visit_table(self: Any, node: kexport_table) -> None:
    self.new_state(0)
    self.add_text("\n".join(text_lines(node)))
    self.end_state(wrap=False)
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the badge strip of an API entry (parts.badges)


@lru_cache(maxsize=4096)
def wrapped_badges(summary: Summary) -> str:
    # wrapped here: the text writer's own wrapping measures every word's display
    # width and, over a thousand entries, cost a fifth of the build
    return "\n".join(wrap_groups(badge_summary.groups(summary), BADGE_WIDTH))


def wrap_groups(groups: list[str], width: int) -> list[str]:
    """Lines of at most ``width`` columns (a longer group keeps its own line), groups joined by " · "."""
    lines: list[str] = []
    for group in groups:
        if lines and len(lines[-1]) + 3 + len(group) + 2 <= width:
            lines[-1] += " · " + group
        else:
            if lines:
                lines[-1] += " ·"
            lines.append(group)
    return lines


def visit_badges(self: Any, node: kexport_badges) -> None:
    # a text-builder raw node does the same, with a Text child more per entry
    self.new_state(0)
    self.add_text(wrapped_badges(node["summary"]))
    self.end_state(wrap=False)
    raise nodes.SkipNode
