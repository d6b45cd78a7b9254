"""Work a worker process does once instead of once per case, without changing what is measured.

``torch.onnx.export`` rebuilds the onnxscript op registry (~500 torchlib
functions, 0.5-1.5 s of pure Python) on every call, although it depends only
on the opset. A worker builds it once per opset and gives every export its
own copy (the function lists are copied, so an export that registers a custom
op cannot leak it into the next case).

A process's first ``torch.compile`` imports inductor and picks the CPU's
vector instruction set (~3 s); the warm fork server does that once, before
it forks the workers (:func:`warm_inductor`).

If torch's internals differ from what these expect, nothing is patched and
exports and the first compile simply take longer.
"""

from __future__ import annotations

import inspect
from typing import Any


def reuse_onnx_registry() -> bool:
    """Patch ``ONNXRegistry.from_torchlib`` to build once per opset; True when patched."""
    try:
        from torch.onnx._internal.exporter import _registration
    except ImportError:
        return False
    registry_class = getattr(_registration, "ONNXRegistry", None)
    original = getattr(registry_class, "__dict__", {}).get("from_torchlib")
    if not isinstance(original, classmethod) or getattr(original.__func__, "_kexport_cached", False):
        return False
    signature = inspect.signature(original.__func__)
    if "opset_version" not in signature.parameters:
        return False
    built: dict[tuple[type, Any], Any] = {}

    def from_torchlib(cls: type, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(cls, *args, **kwargs)
        bound.apply_defaults()
        key = (cls, bound.arguments["opset_version"])
        if key not in built:
            built[key] = original.__func__(cls, *args, **kwargs)
        template = built[key]
        registry = cls.__new__(cls)
        registry.__dict__.update(template.__dict__)
        registry.functions = {target: list(decomps) for target, decomps in template.functions.items()}
        return registry

    from_torchlib._kexport_cached = True  # type: ignore[attr-defined]
    registry_class.from_torchlib = classmethod(from_torchlib)
    return True


def warm_inductor() -> bool:
    """Import inductor and pick the CPU's vector instruction set, as the first ``torch.compile`` of a process
    would (~3 s: the pick compiles a test library per instruction set and loads each in a fresh Python).
    Runs no tensor operation and starts no thread, so a process that forks afterwards hands both on;
    True when done."""
    try:
        import torch._inductor.codecache  # noqa: F401
        import torch._inductor.compile_fx  # noqa: F401
        from torch._inductor import cpu_vec_isa
    except ImportError:
        return False
    pick = getattr(cpu_vec_isa, "pick_vec_isa", None)
    if pick is None:
        return False
    pick()
    return True
