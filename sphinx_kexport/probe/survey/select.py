"""Which cases a run probes (``--only``), and which library it surveys when ``library`` is not set."""

from __future__ import annotations

import collections
import fnmatch
from typing import Iterable

from ..cases.inventory import InventoryCase


def matches(name: str, package: str, pattern: str) -> bool:
    """``--only PATTERN``: the case's name equals or starts with it, or its package is it (or below it);
    with ``*`` or ``?``, a wildcard match of the name or the package."""
    if any(ch in pattern for ch in "*?"):
        return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(package, pattern)
    return name == pattern or name.startswith(pattern) or package == pattern or package.startswith(pattern + ".")


def pick_library(cases: Iterable[InventoryCase]) -> str:
    """The top-level package most cases belong to ("" when none says)."""
    tops = collections.Counter(case.package.split(".")[0] for case in cases if case.package)
    return tops.most_common(1)[0][0] if tops else ""
