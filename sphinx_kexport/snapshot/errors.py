"""The one error type of the contract, and how a problem is put into words.

Every message names the file, the case (index and name) where there is one,
the field, what was expected and what was found, then what to do.
"""

from __future__ import annotations

import json
from typing import Any

FIX_HINT = "Fix the file, or regenerate it with `python -m sphinx_kexport.probe`."


class SnapshotError(Exception):
    """A snapshot that cannot be used, explained for a person."""


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def show_value(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def field_name(parts: list[str]) -> str:
    """``["cases", "[3]", "results"]`` -> ``cases[3].results``."""
    text = ""
    for part in parts:
        text += part if part.startswith("[") or not text else "." + part
    return text or "(top level)"


def field_error(source: str, parts: list[str], expected: str, found: str, cases: list | None) -> SnapshotError:
    """The error for one field; a path below ``cases[i]`` names that case instead of its index alone."""
    case_text = ""
    if len(parts) >= 2 and parts[0] == "cases" and parts[1].startswith("["):
        index = int(parts[1][1:-1])
        name = None
        if cases is not None and index < len(cases) and isinstance(cases[index], dict):
            name = cases[index].get("name")
        case_text = f" case #{index}" + (f" ({name!r})" if isinstance(name, str) else "")
        parts = parts[2:]
    return SnapshotError(
        f"{source}:{case_text} field {field_name(parts)}: expected {expected}, found {found}. {FIX_HINT}"
    )


def schema_version_error(source: str, found: Any) -> SnapshotError:
    from .vocabulary import READABLE_VERSIONS

    readable = " or ".join(str(v) for v in READABLE_VERSIONS)
    return SnapshotError(f"{source}: field schema: expected {readable} (the formats this "
                         f"sphinx-kexport reads), found {show_value(found)}. Upgrade sphinx-kexport "
                         "or regenerate the snapshot.")
