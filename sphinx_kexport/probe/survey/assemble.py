"""Build the format-1 snapshot from the cases, this run's records and the previous snapshot.

Every case of the inventory is listed, in registration order, even when it
has no results yet (a shard part, an ``--only`` run): the inventory and its
order survive into parts, so ``merge`` can check and rebuild it. Results of
devices not probed this run, and of cases not selected, are carried over from
the previous snapshot when it was measured with the same tools; whatever is
still missing makes the snapshot ``complete: false`` with ``missing`` names.
"""

from __future__ import annotations

from typing import Any

from ...snapshot import SCHEMA_VERSION
from ...snapshot.code_table import pack
from ...snapshot.vocabulary import DEVICES
from ..cases.inventory import InventoryCase
from ...snapshot.timestamps import utc_now
# the environment fields that must agree before results measured apart may share one header (and be reused) are
# the environment key's (base/reuse/decide.py); the rest of a header says which machine measured (device_name,
# cuda, driver, onnxruntime_provider) and, platform and probed_at, only describes the host (its kernel and libc
# string, when the header was read)
from ..base.reuse.decide import same_tools

VOLATILE_FIELDS = ("seconds",)


def header_to_write(now: dict[str, Any], base: dict[str, Any] | None, measured_here: bool) -> dict[str, Any]:
    """A device's environment header in the written snapshot: ``now`` (read on this host by this run) when this
    run measured a case on the device, or ``base`` (the header of the snapshot whose results the written one
    keeps; None: there is none, or its results are not kept) names other tools; else ``base`` unchanged, all of
    it: every result under it was measured where it says, and another host's kernel string, driver or probe time
    must not rewrite a snapshot that nothing new went into."""
    if measured_here or base is None or not same_tools(base, now):
        return now
    return base


def _committed(result: dict[str, Any]) -> dict[str, Any]:
    # timings change on every run; kept out of the committed snapshot so a refresh diffs only real changes
    # (they stay in the work records and in --stats)
    return {key: value for key, value in result.items() if key not in VOLATILE_FIELDS}


def missing_cases(cases: list[dict[str, Any]], devices: list[str]) -> list[str]:
    return [c["name"] for c in cases if any(d not in c["results"] for d in devices)]


def build_snapshot(*, cases: list[InventoryCase], measured: dict[tuple[str, str], dict[str, Any]],
                   environments: dict[str, dict[str, Any]], library: dict[str, str],
                   previous: dict[str, Any] | None,
                   stamps: dict[tuple[str, str], dict[str, str]] | None = None,
                   objects_without_cases: list[dict[str, Any]] = (),
                   not_carried: set[tuple[str, str]] = frozenset(), only: list[str] = (),
                   selected: set[str] = frozenset(),
                   code_sets: dict[str, dict[str, str]] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The snapshot dict and notes for the user about what was carried over or dropped.

    ``stamps`` holds, per (case, device) of ``measured``, the fingerprint and
    time it was measured; they go into the case's ``measured`` field so a later
    run can reuse the results. ``not_carried``: (case, device) cells whose
    previous results must not be carried over (the case could not be built as
    described now, so they may describe another case). ``only``: the run's
    ``--only`` patterns, ``selected`` the names they took: a case they left
    out without results is recorded as left out on purpose (``selection``), so
    the page says the run was restricted instead of calling it lost. ``code_sets``
    maps each stamp's ``code`` id to the code it names; the snapshot's ``code``
    table keeps the sets its stamps name (snapshot/code_table.py).
    """
    stamps = stamps or {}
    notes: list[str] = []
    envs = dict(environments)
    old_cases: dict[str, dict[str, Any]] = {}
    reusable: set[str] = set()  # previous devices whose results may be carried over
    if previous is not None:
        old_cases = {c["name"]: c for c in previous["cases"]}
        same_library = previous["library"].get("version") == library.get("version")
        for device, env in previous["environments"].items():
            if device not in envs:
                envs[device] = env  # a device not probed now keeps its results and header
                reusable.add(device)
            elif same_tools(env, envs[device]) and same_library:
                reusable.add(device)
            else:
                notes.append(f"the previous {device} results were measured with other versions "
                             "(torch/onnx/onnxruntime/onnxscript/python/opset or library); "
                             "they are not carried over")
    entries = []
    for case in cases:
        entry = dict(case.entry, results={})
        for device in envs:
            if (case.name, device) in measured:
                entry["results"][device] = {path: _committed(result)
                                            for path, result in measured[(case.name, device)].items()}
                stamp = stamps.get((case.name, device))
            elif device in reusable and (case.name, device) not in not_carried and \
                    device in old_cases.get(case.name, {}).get("results", {}):
                entry["results"][device] = old_cases[case.name]["results"][device]
                stamp = old_cases[case.name].get("measured", {}).get(device)
            else:
                continue
            if stamp:
                entry.setdefault("measured", {})[device] = dict(stamp)
        entries.append(entry)
    ordered_envs = {d: envs[d] for d in DEVICES if d in envs}
    missing = missing_cases(entries, list(ordered_envs))
    snapshot: dict[str, Any] = {
        "schema": SCHEMA_VERSION, "generated_at": utc_now(), "complete": not missing,
        "library": dict(library), "environments": ordered_envs, "cases": entries,
    }
    if missing:
        snapshot["missing"] = missing
    left_out = [name for name in missing if name not in selected]
    if only and left_out:
        snapshot["selection"] = {"only": list(only), "left_out": left_out}
    if objects_without_cases:
        snapshot["objects_without_cases"] = [dict(entry) for entry in objects_without_cases]
    named = sorted({stamp["code"] for entry in entries for stamp in entry.get("measured", {}).values()
                    if isinstance(stamp.get("code"), str)})
    if named:
        sets = code_sets or {}
        kept = {key: sets[key] for key in named if key in sets}
        snapshot["code"] = pack(kept)
        for entry in entries:  # a stamp whose set is lost (a hand-edited snapshot) is measured again
            for stamp in entry.get("measured", {}).values():
                if "code" in stamp and stamp["code"] not in kept:
                    stamp.pop("code", None)
    return snapshot, notes
