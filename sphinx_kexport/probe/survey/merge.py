"""``merge OUT PART...``: combine shard outputs (and per-device runs) into one snapshot.

Parts must come from the same case inventory, the same library and, per
device, the same tool versions; otherwise the merged header would describe
results it did not measure. A case/device that no part measured is a gap:
the merge refuses, or with ``allow_incomplete`` writes ``complete: false``
and lists the gaps in ``missing``. Pure Python: no torch import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...snapshot import DEVICES, SCHEMA_VERSION, SnapshotError, dump_snapshot, read_snapshot
from ..base.errors import ProbeError
from ..base.reuse.decide import COMPARABLE_ENV
from .assemble import missing_cases
from ...snapshot.code_table import pack, unpack
from ...snapshot.timestamps import utc_now


class MergeError(ProbeError):
    """``merge``: the parts cannot be combined into one snapshot (they come from different case inventories,
    or one does not read as a snapshot); the message names the parts and the difference."""


class MergeGap(MergeError):
    """The parts combine, but some case has no result on some device."""


@dataclass
class MergeResult:
    snapshot: dict[str, Any]
    missing: list[str]
    notes: list[str]


def _load(path: Path) -> dict[str, Any]:
    try:
        data, _ = read_snapshot(path)
    except SnapshotError as exc:
        raise MergeError(str(exc)) from None
    return data


def _check_same_inventory(parts: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    first_path, first = parts[0]
    names = [c["name"] for c in first["cases"]]
    for path, data in parts[1:]:
        other = [c["name"] for c in data["cases"]]
        if other != names:
            only_first = [n for n in names if n not in set(other)]
            only_other = [n for n in other if n not in set(names)]
            detail = (f"only in {first_path.name}: {only_first[:3]}; only in {path.name}: {only_other[:3]}"
                      if only_first or only_other else "same cases in a different order")
            raise MergeError(f"{path} and {first_path} come from different case inventories ({len(other)} vs "
                             f"{len(names)} cases; {detail}). Rerun the shards from the same checkout.")
    return names


def _check_same_library(parts: list[tuple[Path, dict[str, Any]]]) -> dict[str, str]:
    first_path, first = parts[0]
    for path, data in parts[1:]:
        if data["library"] != first["library"]:
            raise MergeError(f"{path} measured library {data['library']} but {first_path} measured "
                             f"{first['library']}. Merge parts of one library version and revision.")
    return dict(first["library"])


def _merged_environments(parts: list[tuple[Path, dict[str, Any]]], notes: list[str]) -> dict[str, dict]:
    merged: dict[str, dict[str, Any]] = {}
    source: dict[str, Path] = {}
    for path, data in parts:
        for device, env in data["environments"].items():
            if device not in merged:
                merged[device], source[device] = dict(env), path
                continue
            differs = [k for k in COMPARABLE_ENV if env.get(k) != merged[device].get(k)]
            if differs:
                shown = ", ".join(f"{k} {merged[device].get(k)!r} vs {env.get(k)!r}" for k in differs)
                raise MergeError(f"{path} and {source[device]} probed {device} with different environments "
                                 f"({shown}). Rerun them with the same versions.")
            if env.get("device_name") != merged[device].get("device_name"):
                notes.append(f"{device} parts ran on different machines: {merged[device].get('device_name')!r} "
                             f"and {env.get('device_name')!r}")
            merged[device]["probed_at"] = max(merged[device]["probed_at"], env["probed_at"])
    return {d: merged[d] for d in DEVICES if d in merged}


def merge_parts(paths: list[Path], allow_incomplete: bool = False) -> MergeResult:
    if not paths:
        raise MergeError("no parts given: merge OUT PART [PART ...]")
    parts = [(p, _load(p)) for p in paths]
    notes: list[str] = []
    names = _check_same_inventory(parts)
    library = _check_same_library(parts)
    environments = _merged_environments(parts, notes)
    cases = []
    for index, name in enumerate(names):
        entries = [(path, data["cases"][index]) for path, data in parts]
        base = next((e for _, e in entries if e["results"]), entries[0][1])
        merged = {k: v for k, v in base.items() if k not in ("results", "measured")} | {"results": {}}
        owner: dict[str, Path] = {}
        for path, entry in entries:
            for device, results in entry["results"].items():
                if device in merged["results"] and merged["results"][device] != results:
                    notes.append(f"{name} on {device} is in {owner[device].name} and {path.name}; "
                                 f"using {path.name}")
                merged["results"][device], owner[device] = results, path
                stamp = entry.get("measured", {}).get(device)
                if stamp:  # the fingerprint and code of the results taken, from the part they came from
                    merged.setdefault("measured", {})[device] = stamp
                else:
                    merged.get("measured", {}).pop(device, None)
        cases.append(merged)
    missing = missing_cases(cases, list(environments))
    if missing and not allow_incomplete:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise MergeGap(f"{len(missing)} of {len(names)} cases have no result on every device ({shown}): a shard "
                         "is missing or failed. Add its part, or pass --allow-incomplete to write a snapshot "
                         "marked complete: false.")
    snapshot: dict[str, Any] = {"schema": SCHEMA_VERSION, "generated_at": utc_now(), "complete": not missing,
                                "library": library, "environments": environments, "cases": cases}
    if missing:
        snapshot["missing"] = missing
    code = {key: refs for _, data in parts for key, refs in unpack(data.get("code")).items()}
    named = sorted({s["code"] for c in cases for s in c.get("measured", {}).values() if "code" in s})
    if named:  # a set's key is a digest of it: the parts agree on every key they share
        snapshot["code"] = pack({key: code[key] for key in named if key in code})
    without = {o["ref"]: o for _, data in reversed(parts) for o in data.get("objects_without_cases", ())}
    if without:  # the parts share the inventory: the same objects, each said once (the first part's wording)
        snapshot["objects_without_cases"] = [without[ref] for ref in sorted(without)]
    return MergeResult(snapshot, missing, notes)


def merge_command(out: Path, paths: list[Path], allow_incomplete: bool) -> MergeResult:
    result = merge_parts(paths, allow_incomplete)
    dump_snapshot(result.snapshot, out)
    return result
