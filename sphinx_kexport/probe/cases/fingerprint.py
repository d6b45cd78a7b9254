"""A fingerprint of what a record measured, so a resumed run reuses only records that still apply.

It covers the case definition (name, target, input shapes, dtypes and
values, containers, kwargs, check/atol/rtol/skip/method, code, batch dimensions), the library
version, the tool versions, the opset, the device and whether the dynamic-batch pass ran. Object
addresses and ids in reprs are removed (:func:`~.opaque.address_free_repr`), and reprs are made under
torch's default print options, so that an unchanged case gets the same fingerprint in every process.

A run without the dynamic-batch pass may reuse results measured with it (they hold everything it
asks for); a run with the pass may not reuse results measured without it (:func:`reusable_keys`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from .containers import input_leaves, skeleton
from .layouts import is_sparse, layout_name, parts
from .opaque import address_free_repr, without_addresses
from .registry import CaseSpec

RECORD_FORMAT = 6  # bump when the meaning of a record changes (2: compile breaks from dynamo's counters;
# 3: the batch dimensions and the dynamic-batch pass; 4: a trailing dict input exported to ONNX, the
# fullgraph=True claim checked with inductor, reworded reasons, a library that rejects a symbolic batch is static;
# 5: a function dynamo skips is listed in skipped_functions and counts as a break only where it splits the graph,
# dynamo's guards refusing a library object are worded; 6: the statement at where is recorded (where_code),
# a constant graph's note says why nothing was lifted, a case names its object's other public names)


def stable_repr(value: Any) -> str:
    """``repr(value)`` without addresses and ids, under torch's default print options: a library's tests may
    change them for the whole process (kornia's ``test_conversions.py`` sets ``precision=10``), and a baked tensor
    or module printed with another precision in the inventory than in the worker was another case there."""
    torch = sys.modules.get("torch")
    if torch is None:  # nothing to print with torch's options
        return address_free_repr(value)
    options = torch._tensor_str.PRINT_OPTS
    saved = dict(vars(options))
    torch.set_printoptions(profile="default")
    options.sci_mode = None
    try:
        return address_free_repr(value)
    finally:
        vars(options).update(saved)


def _target_name(target: Any) -> str:
    if target is None:
        return ""
    obj = target if hasattr(target, "__qualname__") else type(target)
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def _tensor_digest(tensor: Any) -> dict[str, Any]:
    import torch

    if is_sparse(tensor):  # no contiguous form, no bytes of its own: its parts' digests, and its layout
        digests = [_tensor_digest(part) for part in parts(tensor.detach().cpu())]
        values = hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()[:16]
        return {"shape": list(tensor.shape), "dtype": str(tensor.dtype), "layout": layout_name(tensor),
                "values": values}
    data = tensor.detach().cpu().contiguous()
    flat = data.view(-1)
    if flat.numel() and flat.stride(0) != 1:
        # one element sliced out of a row (``x[:, 0]`` of a (1,3)): contiguous, yet its stride stays 3
        flat = torch.empty(flat.shape, dtype=flat.dtype).copy_(flat)  # clone() would keep the stride
    # hashed in place (a buffer, not a bytes copy): a model's 786 MB embedding is not held twice
    raw = memoryview(flat.view(torch.uint8).numpy()) if data.numel() else b""
    return {"shape": list(data.shape), "dtype": str(data.dtype), "values": hashlib.sha256(raw).hexdigest()[:16]}


def _module_digest(target: Any) -> str:
    """A module's structure and parameter values (random init under the import seed is reproducible)."""
    import torch

    if not isinstance(target, torch.nn.Module):
        return ""
    digest = hashlib.sha256(stable_repr(target).encode())
    for name, tensor in sorted(target.state_dict().items()):
        digest.update(name.encode())
        digest.update(json.dumps(_tensor_digest(tensor), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def case_definition(spec: CaseSpec) -> dict[str, Any]:
    definition = {
        "name": spec.name, "target": _target_name(spec.target), "module": _module_digest(spec.target),
        "inputs": [dict(_tensor_digest(t), name=name) for name, t in input_leaves(spec.inputs)]
        if not spec.skip else [],
        "containers": stable_repr([skeleton(value) for value in spec.inputs]),
        "code": without_addresses(spec.code),  # a repro's text may print an object's address (e3nn's Activation)
        "kwargs": stable_repr(sorted(spec.kwargs.items())), "check": spec.check, "atol": spec.atol,
        "rtol": spec.rtol, "skip": spec.skip, "method": spec.method, "batch": spec.batch.dims,
    }
    if spec.batch.per_sample:  # only then: the fingerprints of cases without one stay as they were
        definition["per_sample"] = spec.batch.per_sample
    if spec.bench is not None:  # likewise: the inputs the speed pass times at instead of a grown batch
        definition["bench"] = [dict(_tensor_digest(t), name=name) for name, t in input_leaves(spec.bench)]
    return definition


def definition_or_why(spec: CaseSpec) -> tuple[dict[str, Any] | None, str]:
    """(the case's :func:`case_definition`, "") or (None, why the probe cannot describe it): discovery leaves
    such a case out, named, and goes on with the others, instead of the probe stopping on the first."""
    try:
        return case_definition(spec), ""
    except Exception as exc:
        message = " ".join(str(exc).split())[:200]
        return None, (f"the probe cannot describe its inputs ({type(exc).__name__}: {message}), so it is left "
                      "out; this is a limit of sphinx-kexport: please report it")


def definition_digest(definition: dict[str, Any]) -> str:
    """What a worker checks the case it built against: the definition the inventory described, its name aside
    (the parent may have qualified it)."""
    unnamed = {key: value for key, value in definition.items() if key != "name"}
    return hashlib.sha256(json.dumps(unnamed, sort_keys=True, default=str).encode()).hexdigest()


def fingerprint(definition: dict[str, Any], device: str, opset: int, library_version: str, tools: dict[str, str],
                dynamic: bool = True) -> str:
    """The fingerprint of a case's :func:`case_definition` measured on ``device`` (standard library only: the
    probe's parent computes it from the definition a child process sent)."""
    payload = {"format": RECORD_FORMAT, "case": definition, "device": device, "opset": opset,
               "library": library_version, "tools": tools, "dynamic": dynamic}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def reusable_keys(definition: dict[str, Any], device: str, opset: int, library_version: str, tools: dict[str, str],
                  dynamic: bool) -> tuple[str, ...]:
    """The fingerprints whose results this run may reuse; the first is the one it stamps on what it measures.

    With the dynamic-batch pass on, only results measured with it; with it off, either kind (results that
    have the dynamic results are kept whole). For a torch with a local version (``+cu128``), also the
    fingerprints stamped under its public version (below)."""
    stamped = [tools]
    exact = str(tools.get("torch") or "")
    if "+" in exact:
        # a record stamped before the parent read torch's own version (torch 2.9.1+cu128 as "2.9.1", its
        # distribution's): the header it sits under names the exact build, which the caller has compared
        stamped.append(dict(tools, torch=exact.split("+", 1)[0]))
    keys = [fingerprint(definition, device, opset, library_version, t, dynamic=dynamic) for t in stamped]
    if not dynamic:
        keys += [fingerprint(definition, device, opset, library_version, t, dynamic=True) for t in stamped]
    return tuple(keys)
