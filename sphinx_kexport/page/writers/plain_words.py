"""The rows in plain words, shared by the writers that are not HTML (text, LaTeX, man, texinfo)."""

from __future__ import annotations

import re

from ..model.fixes import detail_fixes

_SPACES = re.compile(r"\s+")


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def operator_label(row: dict) -> str:
    return row["operator"] + (f" [{row['variant']}]" if row["variant"] else "")


def also_names(row: dict, named: dict[str, str]) -> list[str]:
    """The object's public names other than the one the row links to (its ref, or the alias the API docs
    document: ``named``), in the snapshot's order: what the row lists under "also:"."""
    aliases = row.get("aliases") or []
    shown = named.get(row["id"]) or row["ref"]
    return [name for name in (row["ref"], *aliases) if name != shown] if aliases else []


def fix_words(row: dict, detail: dict) -> str:
    """" (fix: a data-dependent guard)" for a red detail: its classes (``model.fixes``), else ""."""
    titles = [f["title"] for f in detail_fixes(detail, {c["key"]: c for c in row["cells"]})]
    return f" (fix: {'; '.join(titles)})" if titles else ""


def reason_text(row: dict) -> str:
    """"ONNX, torch.export: reason (fix: its class); torch.compile: other reason (at lib/x.py:12)"."""
    parts = [f"{d['labels']}: {one_line(d['text'])}{fix_words(row, d)}" for d in row["details"] if d["text"].strip()]
    text = "; ".join(parts)
    if row["where"]:
        text += (" " if text else "") + "(at " + ", ".join(where_words(row)) + ")"
    return text


def where_words(row: dict) -> list[str]:
    """Each library line of a row, with the statement there on one line: "lib/x.py:9: if m.any(): break"."""
    code = dict(row.get("statements") or [])
    return [f"{w}: {one_line(code[w])}" if w in code else w for w in row["where"]]


def status_text(cell: dict) -> str:
    """The cell's text with its dynamic-batch and speed marks, if any: "yes (batch 2 only; 3.1× faster)"."""
    marks = "; ".join(m for m in (cell.get("mark"), cell.get("speed")) if m)
    return f"{cell['text']} ({marks})" if marks else cell["text"]


def version_words(row: dict, key: str) -> str:
    """"since torch 2.13.0", "regressed in torch 2.15.0", ...: a page across torch versions, a cell whose
    versions differ (``model.version_marks``); else ""."""
    history = row.get("versions")
    cell = history["cells"].get(key) if history else None
    return cell["words"] if cell else ""


def cell_text(row: dict, cell: dict) -> str:
    """The cell's text (with its dynamic-batch mark), plus "[regressed]" / "[fixed]" when the page
    compares with an older snapshot (``:compare:``) and this cell changed that way, plus "(since torch
    2.13.0)" and the like on a page across torch versions."""
    text = status_text(cell)
    for change in row.get("changes", ()):
        if change["key"] == cell["key"] and change["kind"] in ("regressed", "fixed"):
            text = f"{text} [{change['kind']}]"
            break
    words = version_words(row, cell["key"])
    return f"{text} ({words})" if words else text


def cell_texts(row: dict) -> list[str]:
    if "changes" not in row and "versions" not in row:
        return [status_text(cell) for cell in row["cells"]]
    return [cell_text(row, cell) for cell in row["cells"]]


def version_lines(row: dict, columns: list[dict]) -> list[str]:
    """The row's versions in words, for the line(s) under it: "torch versions: 2.13.0, 2.15.0 (not in
    2.11.0)" when some version lacks the case, and per differing cell "ONNX by torch version: 2.11.0 no;
    2.13.0 yes; 2.15.0 yes"."""
    history = row.get("versions")
    if not history:
        return []
    lines = []
    if history["absent"]:
        lines.append("only in torch " + ", ".join(history["present"]))
    labels = {column["key"]: column["label"] for column in columns}
    for key, cell in history["cells"].items():
        lines.append(f"{labels.get(key, key)} by torch version: "
                     + "; ".join(f"{s['version']} {s['text']}" for s in cell["strip"]))
    return lines
