"""The library statement a failure names: the source at ``where``, kept as the result's ``where_code``.

A graph break's words say only that "a Python branch tests tensor values"; which of the compile-first
workflow's classes it is (a value check, an early exit of a loop, an early return, a gate) is written in the
statement itself (``snapshot.fix_classes`` reads it). The worker reads it from the file it just ran, so it is
the code measured, and the page can show it without the library's source. Kept short: a simple statement
whole, a compound one (``if`` / ``while`` / ``for`` / ``with`` / ``try``) as its header and the first
statement of its body, at most ``MAX_LINES`` lines of ``MAX_CHARS`` characters in all.
"""

from __future__ import annotations

import ast
import os
import textwrap
from functools import lru_cache
from typing import Any

from .locate import LibraryRoot

MAX_LINES = 6
MAX_CHARS = 400
_COMPOUND = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try)


@lru_cache(maxsize=32)  # a case's cells name the same few files
def _parsed(path: str, mtime: float) -> tuple[ast.Module, tuple[str, ...]] | None:
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        return ast.parse(source), tuple(source.splitlines())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def _innermost(body: list[ast.stmt], line: int) -> ast.stmt | None:
    for node in body:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = _innermost(getattr(node, field, None) or [], line)
                if inner is not None:
                    return inner
            return node
    return None


def _capped(lines: list[str], most: int) -> list[str]:
    return lines if len(lines) <= most else lines[:most] + ["..."]


def statement_at(path: str, line: int) -> str:
    """The statement of ``path`` that holds ``line``, dedented, or "" where the file cannot be read or parsed
    or no statement holds the line."""
    try:
        parsed = _parsed(os.path.realpath(path), os.path.getmtime(path))
    except OSError:
        return ""
    if parsed is None:
        return ""
    tree, lines = parsed
    node = _innermost(tree.body, line)
    if node is None:
        return ""
    body_at = node.body[0].lineno if isinstance(node, _COMPOUND) and node.body else None
    end = (node.body[0].end_lineno if body_at else node.end_lineno) or node.lineno
    text = textwrap.dedent("\n".join(lines[node.lineno - 1:end])).splitlines()
    if body_at:  # the header, then the body's first statement: each part capped on its own
        cut = body_at - node.lineno
        text = _capped(text[:cut], MAX_LINES // 2) + _capped(text[cut:], MAX_LINES // 2)
    else:
        text = _capped(text, MAX_LINES)
    joined = "\n".join(text).strip()
    return joined if len(joined) <= MAX_CHARS else joined[:MAX_CHARS - 3].rstrip() + "..."


def where_statement(where: str, root: LibraryRoot) -> str:
    """The statement a ``where`` label (``pkg/file.py:98``, relative to the library's base) names, or ""."""
    file, _, line = where.rpartition(":")
    if not file or not line.isdigit() or not root.base:
        return ""
    return statement_at(os.path.join(root.base, file), int(line))


def add_statements(record: dict[str, Any], root: LibraryRoot) -> dict[str, Any]:
    """Give a result (and its dynamic-batch result) the statement at its ``where``; returns ``record``."""
    for item in (record, record.get("dynamic")):
        if isinstance(item, dict) and item.get("where") and "where_code" not in item:
            code = where_statement(item["where"], root)
            if code:
                item["where_code"] = code
    return record
