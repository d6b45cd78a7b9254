"""The rows in plain words, shared by the writers that are not HTML (text, LaTeX, man, texinfo)."""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def operator_label(row: dict) -> str:
    return row["operator"] + (f" [{row['variant']}]" if row["variant"] else "")


def reason_text(row: dict) -> str:
    """"ONNX, torch.export: reason; torch.compile: other reason (at lib/x.py:12)"."""
    parts = [f"{d['labels']}: {one_line(d['text'])}" for d in row["details"] if d["text"].strip()]
    text = "; ".join(parts)
    if row["where"]:
        text += (" " if text else "") + "(at " + ", ".join(row["where"]) + ")"
    return text


def status_text(cell: dict) -> str:
    """The cell's text with its dynamic-batch mark, if any: "yes (batch 2 only)"."""
    mark = cell.get("mark")
    return f"{cell['text']} ({mark})" if mark else cell["text"]


def cell_text(row: dict, cell: dict) -> str:
    """The cell's text (with its dynamic-batch mark), plus "[regressed]" / "[fixed]" when the page
    compares with an older snapshot (``:compare:``) and this cell changed that way."""
    for change in row.get("changes", ()):
        if change["key"] == cell["key"] and change["kind"] in ("regressed", "fixed"):
            return f"{status_text(cell)} [{change['kind']}]"
    return status_text(cell)


def cell_texts(row: dict) -> list[str]:
    if "changes" not in row:
        return [status_text(cell) for cell in row["cells"]]
    return [cell_text(row, cell) for cell in row["cells"]]
