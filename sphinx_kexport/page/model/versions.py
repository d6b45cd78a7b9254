"""Several snapshots, one per torch version: which torch each is, their order, and the checks.

A snapshot's torch version and the order of versions are the contract's (``snapshot/torch_versions.py``,
shared with ``probe worklist``); the order the directive names the files in does not matter.

Every problem is one :class:`~sphinx_kexport.snapshot.SnapshotError` naming the file and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...snapshot import Snapshot, SnapshotError
from ...snapshot.torch_versions import release, torch_version, version_key  # noqa: F401 (the page's names)


@dataclass
class Version:
    """One snapshot of the page, and the torch it was probed with."""

    label: str  # "2.13.0": the torch version without its local part
    snapshot: Snapshot
    data: dict[str, Any]  # the validated dict (``snapshot.diff.compare`` reads it)
    source: str  # the path as written in the directive

    @property
    def title(self) -> str:
        return f"torch {self.label}"


def _library(snapshot: Snapshot) -> str:
    return str(snapshot.library.get("name", "")).strip()


def order_versions(loaded: Sequence[tuple[Snapshot, dict[str, Any], str]]) -> list[Version]:
    """``(snapshot, data, source)`` per file -> the versions, oldest first, checked to be one library's
    snapshots of different torch versions."""
    versions: list[Version] = []
    for snapshot, data, source in loaded:
        label = torch_version(snapshot, source)
        for other in versions:
            if other.label == label:
                raise SnapshotError(
                    f"{source}: torch {label}, the same as {other.source}: expected one snapshot per torch "
                    "version. Give the directive one of them (merge shards of one survey first with "
                    "`python -m sphinx_kexport.probe merge`).")
            if _library(other.snapshot) != _library(snapshot):
                raise SnapshotError(
                    f"{source}: library {_library(snapshot)!r}, but {other.source} surveys "
                    f"{_library(other.snapshot)!r}: expected snapshots of one library, one per torch version. "
                    "Give each library a directive of its own.")
        versions.append(Version(label, snapshot, data, source))
    return sorted(versions, key=lambda v: version_key(v.label))
