"""Snapshot text in a Markdown table, as an issue tracker or a pull request renders it."""

from __future__ import annotations

import re

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# what Markdown (GitHub's) would read as markup inside a table cell; an underscore inside a word is no emphasis
# (rgb_to_grayscale stays as it is)
_MARKUP = re.compile(r"([\\`*\[\]|~]|(?<!\w)_|_(?!\w))")
_NEWLINE = re.compile(r"\r\n|\r|\n")


def md_cell(text: object, keep_lines: bool = False) -> str:
    """Snapshot text as literal text in a Markdown table cell: HTML characters as entities (trackers render
    inline HTML), markup characters backslash-escaped (a pipe would end the cell), on one line: whitespace runs
    folded to one space, or with ``keep_lines`` each newline as ``<br>`` (a newline would end the row)."""
    value = str(text)
    escaped = _MARKUP.sub(r"\\\1", "".join(_HTML.get(ch, ch) for ch in value))
    return _NEWLINE.sub("<br>", escaped) if keep_lines else " ".join(escaped.split())


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a table whose cells are already Markdown (pass snapshot text through :func:`md_cell`)."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(row) + " |" for row in rows]
