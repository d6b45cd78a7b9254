"""Describe a built case as the parent needs it: an :class:`~.inventory.InventoryCase`.

This runs where the case was built (a child process): it reads the target and
inputs once, to write the snapshot entry (with the ``call`` that rebuilds it)
and the fingerprint's definition, and keeps nothing of them.
"""

from __future__ import annotations

import contextlib
import traceback
from typing import Any, ContextManager

from .containers import input_leaves
from .fingerprint import case_definition
from .inventory import InventoryCase, LoadError, Source
from .layouts import is_sparse, layout_name
from .loader import imported_cases
from .module_copy import module_weights
from .public_names import aliases_of
from .registry import CaseSpec


def case_entry(spec: CaseSpec) -> dict[str, Any]:
    """The snapshot's entry for ``spec``, without results."""
    from .call_source import call_source  # needs torch and numpy

    entry: dict[str, Any] = {
        "name": spec.name, "package": spec.package, "section": spec.section, "operator": spec.operator,
        "variant": spec.variant, "ref": spec.ref, "origin": spec.origin, "note": spec.note, "check": spec.check,
        "results": {},
        # the format's inputs are a flat list: containers are flattened in the exporter's order
        "inputs": [input_record(t) for _, t in input_leaves(spec.inputs)],
    }
    aliases = aliases_of(spec.ref)
    if aliases:  # the object's other public names: the page shows them and finds the row by them
        entry["aliases"] = list(aliases)
    call = call_source(spec)
    if call:
        entry["call"] = call
    return entry


def input_record(tensor: Any) -> dict[str, Any]:
    """One input of the snapshot's flat list: shape and dtype, and the layout of a sparse tensor (absent for a
    strided one, so the records of dense inputs stay as they were)."""
    record: dict[str, Any] = {"shape": [int(d) for d in tensor.shape],
                              "dtype": str(tensor.dtype).removeprefix("torch.")}
    if is_sparse(tensor):
        record["layout"] = layout_name(tensor)
    return record


def weight_bytes(target: Any) -> int:
    """Bytes of the parameters and buffers of the module a case calls (the module itself, or the one a bound
    method belongs to), each storage once; 0 for anything else. The parent reads it to give a case with large
    weights a worker of its own (run/pool.py)."""
    import torch

    owner = getattr(target, "__self__", target)
    if not isinstance(owner, torch.nn.Module):
        return 0
    seen: dict[Any, int] = {}
    for tensor in module_weights(owner):
        storage = tensor.untyped_storage()
        seen[(storage.data_ptr(), storage.device)] = storage.nbytes()
    return sum(seen.values())


def describe(spec: CaseSpec) -> InventoryCase:
    entry = case_entry(spec)
    return InventoryCase(name=spec.name, local_name=spec.name, module=spec.module, package=spec.package,
                         ref=spec.ref, origin=spec.origin, skip=spec.skip, shapes=spec.joinable.shapes,
                         definition=case_definition(spec), entry=entry, discovery=spec.discovery,
                         weight_bytes=weight_bytes(spec.target), aliases=tuple(entry.get("aliases", ())))


def describe_module(source: Source, importing: ContextManager[Any] = contextlib.nullcontext()) -> list[InventoryCase]:
    """Import one case module (building its cases, discovering its docstring cases) and describe each case.
    A case the probe fails to describe is a LoadError that names it (the traceback goes to stderr).
    ``importing``: entered around the import alone (measure/build_watch.py watches it)."""
    described, failed = [], []
    with importing:
        specs = imported_cases(source)
    for spec in specs:
        try:
            described.append(describe(spec))
        except Exception as exc:
            traceback.print_exc()
            failed.append(f"case {spec.name!r} ({type(exc).__name__}: {exc})")
    if failed:  # every one named, not the first alone
        cases = f"{len(failed)} case{'s' if len(failed) > 1 else ''}"
        raise LoadError(f"{source.label}: the probe failed to describe {cases}: {'; '.join(failed)}. This is a "
                        "bug in sphinx-kexport: please report it with the traceback above; until it is fixed, leave "
                        "these cases out to probe the others.")
    return described
