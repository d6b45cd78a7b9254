"""A snapshot's torch version, and the order of torch versions.

A snapshot's torch version is the ``torch`` field of its environments (one per device). The local
part (``+cpu``, ``+cu132``) names the build, not the version, so ``2.13.0+cpu`` on CPU and
``2.13.0+cu132`` on CUDA are one version, ``2.13.0``. Versions are ordered numerically (``2.9`` before
``2.11``), a pre-release (``2.14.0rc1``, ``2.14.0.dev20261201``) before its release. Shared by the page
across torch versions and ``probe worklist``.
"""

from __future__ import annotations

import re

from .errors import SnapshotError
from .records import Snapshot
from .vocabulary import DEVICE_LABELS

_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(.*?)\s*$")


def release(text: str) -> str:
    """The version without its local part: ``2.13.0+cu132`` -> ``2.13.0``."""
    return text.split("+", 1)[0].strip()


def version_key(text: str) -> tuple:
    """A sort key: the numbers first, then a pre-release before its release; None-free, comparable."""
    match = _VERSION.match(release(text))
    if match is None:
        raise ValueError(text)
    numbers = tuple(int(n) for n in match.group(1).split("."))
    numbers += (0,) * (4 - len(numbers))
    rest = match.group(2).lstrip(".-_")
    return numbers, 0 if rest else 1, rest


def torch_version(snapshot: Snapshot, source: str) -> str:
    """The snapshot's one torch version (without the local part), or an error saying what to do."""
    found: dict[str, list[str]] = {}
    for device in snapshot.devices:
        text = str(snapshot.environments[device].get("torch") or "").strip()
        if not text:
            raise SnapshotError(
                f"{source}: field environments.{device}.torch: expected the torch version the snapshot was "
                "probed with (a page of several snapshots tells them apart by it), found nothing. Regenerate "
                "it with `python -m sphinx_kexport.probe`, or give the directive this snapshot alone.")
        try:
            version_key(text)
        except ValueError:
            raise SnapshotError(
                f"{source}: field environments.{device}.torch: expected a version such as 2.13.0+cpu, found "
                f"{text!r}. Fix the file, or give the directive this snapshot alone.") from None
        found.setdefault(release(text), []).append(device)
    if not found:
        raise SnapshotError(
            f"{source}: field environments: expected at least one device with its torch version (a page of "
            "several snapshots tells them apart by it), found none. Regenerate it with "
            "`python -m sphinx_kexport.probe`, or give the directive this snapshot alone.")
    if len(found) > 1:
        listed = " and ".join(f"{v} ({', '.join(DEVICE_LABELS[d] for d in ds)})" for v, ds in found.items())
        raise SnapshotError(
            f"{source}: field environments: expected one torch version on every device, found {listed}. "
            "Survey each torch version into a snapshot of its own.")
    return next(iter(found))
