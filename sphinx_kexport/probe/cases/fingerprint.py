"""What a case is, as plain data: the definition a record's fingerprint covers.

The definition holds the name, target, input shapes, dtypes and values, containers, kwargs,
check/atol/rtol/skip/method, code and batch dimensions. Object addresses and ids in reprs are removed
(:func:`~.opaque.address_free_repr`), and reprs are made under torch's default print options, so that an
unchanged case gets the same definition in every process. The fingerprint itself (the definition, the
device, the opset, the library's and tools' versions, the dynamic-batch pass and the probe's measuring code)
is one of the "measure again?" keys, computed by :mod:`..base.reuse.decide`.
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
