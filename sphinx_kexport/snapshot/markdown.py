"""Snapshot text in a Markdown table, as an issue tracker or a pull request renders it."""

from __future__ import annotations

import html


def md_cell(text: str) -> str:
    """Snapshot text in a markdown table cell: HTML escaped (trackers render inline HTML), pipes escaped, one line."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a table whose cells are already Markdown (pass snapshot text through :func:`md_cell`)."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(row) + " |" for row in rows]
