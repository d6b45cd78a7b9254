"""What a survey starts from: the snapshot there is, what of it the written one keeps, and per device which of
its results may be reused instead of measuring (or why none may)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...snapshot import SnapshotError, read_snapshot
from ..discover.cache import cache_dir
from .config import ProbeConfig
from ..base.reuse.decide import unusable_environment
from ..base.reuse.keys import Reason
from .reuse import reusable_results


@dataclass
class Baseline:
    """Read once the library is known (:func:`read_baseline`); empty until then."""

    speed: bool = False  # the speed pass on: --speed, or a snapshot that holds figures
    info: dict[str, str] = field(default_factory=dict)  # the surveyed library: name, version
    previous: dict[str, Any] | None = None  # the snapshot there is (a shard's: None)
    carried: dict[str, Any] | None = None  # what the written snapshot keeps for cases not measured now
    reusable: dict[str, Any] = field(default_factory=dict)  # device -> the results that may be reused
    # device -> why none of the snapshot's results apply (None: they may)
    why_not: dict[str, Reason | None] = field(default_factory=dict)
    snapshot_cases: dict[str, set[str]] = field(default_factory=dict)  # device -> the cases it has results for


def read_baseline(config: ProbeConfig, info: dict[str, str], tools: dict[str, str], notes: list[str]) -> Baseline:
    """The baseline of a survey of the library ``info`` with ``tools``; what it could not read goes to ``notes``."""
    previous = None if config.shard else _previous_snapshot(config.out, notes)
    # what a shard's part keeps for its cases this run does not measure (--only): its own earlier part
    carried = _earlier_part(config, notes) if config.shard else previous
    cache = None if config.fresh else carried  # --fresh: measure every selected case again
    reusable = {device: reusable_results(cache, device, tools, config.opset, info["version"], config.timeout)
                for device in config.devices}
    why_not = {device: Reason("fresh") if config.fresh and carried else
               unusable_environment(cache, device, tools, config.opset, info["version"])
               for device in config.devices}
    # a snapshot measured with the speed pass keeps it: the cases measured again are timed too, so that a
    # rerun without --speed (a pull request's gate) drops no figure the snapshot holds
    speed = config.speed or (not config.shard and _measured_with_speed(previous))
    if speed and not config.speed:
        notes.append(f"{config.out.name} holds speed figures: the cases measured again are timed against "
                     "eager too, as --speed does, so that none loses its figures")
    snapshot_cases = {device: {c["name"] for c in (cache or {}).get("cases", [])
                               if device in c.get("results", {})} for device in config.devices}
    return Baseline(speed=speed, info=info, previous=previous, carried=carried, reusable=reusable,
                    why_not=why_not, snapshot_cases=snapshot_cases)


def digest_store() -> str | None:
    """Where the digests of the code the records name are kept between runs (beside the discovery cache; none
    when it is off)."""
    directory = cache_dir()
    return str(directory / "code-digests.json") if directory is not None else None


def _measured_with_speed(snapshot: dict[str, Any] | None) -> bool:
    """Whether any result of ``snapshot`` has speed figures (it was measured with --speed)."""
    return any("speed" in record for case in (snapshot or {}).get("cases", ())
               for paths in case.get("results", {}).values() for record in paths.values())


def _previous_snapshot(path: Path, notes: list[str]) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        return read_snapshot(path)[0]
    except SnapshotError as exc:
        notes.append(f"the existing {path.name} cannot be read, so none of its results are kept ({exc})")
        return None


def _earlier_part(config: ProbeConfig, notes: list[str]) -> dict[str, Any] | None:
    """A shard's own earlier part, else the project's snapshot."""
    for path in (config.out, config.base_out):
        if path is not None and path.exists():
            return _previous_snapshot(path, notes)
    return None
