"""Objects whose docstring example yielded no case, noted as ``cases_from_docstrings`` runs in a case module.

The child process that imports a case module takes them with its cases
(:func:`taken`), so the snapshot can list them with why: nothing a library's
docstrings show is dropped silently. Standard library only.
"""

from __future__ import annotations

from typing import Any

_NOTED: dict[str, dict[str, Any]] = {}


def note(ref: str, package: str, kind: str, detail: str) -> None:
    """Remember one object (the first note of a ref wins: the same package surveyed twice says it once)."""
    _NOTED.setdefault(ref, {"ref": ref, "package": package, "kind": kind, "detail": detail})


def taken() -> list[dict[str, Any]]:
    """The objects noted so far, in the order of their names, and forget them."""
    found = [_NOTED[ref] for ref in sorted(_NOTED)]
    _NOTED.clear()
    return found
