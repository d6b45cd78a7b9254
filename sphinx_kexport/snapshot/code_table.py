"""The snapshot's ``code`` table: which code each measured case ran, every function named once.

A case's stamp (``measured[device].code``) names a *set*: ``{ref: digest}`` of each function and file top
level it ran (probe/base/code_digest.py). Cases share sets, and sets share most of their refs (every kornia
augmentation runs the same base classes), so the table holds each (ref, digest) pair once, under a short id,
and each set as the list of its pairs' ids::

    "code": {"refs": {"3f9a0c1b2d": ["kornia/filters/gaussian.py::gaussian_blur2d", "9c867cddea507eb0"], ...},
             "sets": {"c1230a1bba8bd4cd": ["3f9a0c1b2d", ...], ...}}

Ids are digests of what they name, so a refresh changes only the entries whose code changed (no renumbering
in a committed file's diff). Standard library only.
"""

from __future__ import annotations

import hashlib
from typing import Any

REF_ID_LENGTH = 10


def ref_id(ref: str, digest: str) -> str:
    return hashlib.sha256(f"{ref} {digest}".encode()).hexdigest()[:REF_ID_LENGTH]


def pack(sets: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The table for ``sets`` (set id -> {ref: digest}), each pair once."""
    refs: dict[str, list[str]] = {}
    packed: dict[str, list[str]] = {}
    for key in sorted(sets):
        ids = []
        for ref, digest in sorted(sets[key].items()):
            pair = ref_id(ref, digest)
            if refs.setdefault(pair, [ref, digest]) != [ref, digest]:
                raise ValueError(f"two code refs share the id {pair}: {refs[pair]} and {[ref, digest]}")
            ids.append(pair)
        packed[key] = ids
    return {"refs": dict(sorted(refs.items())), "sets": packed}


def unpack(table: Any) -> dict[str, dict[str, str]]:
    """Set id -> {ref: digest} of a snapshot's ``code`` table ({} for none)."""
    if not isinstance(table, dict):
        return {}
    refs = table.get("refs") or {}
    return {key: {refs[i][0]: refs[i][1] for i in ids if i in refs} for key, ids in (table.get("sets") or {}).items()}
