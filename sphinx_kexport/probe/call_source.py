"""Python source that rebuilds a case's callable as ``fn`` and its inputs as ``inputs``.

The page turns it into a copyable repro (``torch.onnx.export(fn, inputs,
dynamo=True)`` and friends). It is best effort from the registration: the
target's importable path (``ref``), the kwargs' reprs and the input shapes.
What cannot be written as source is said in a comment, never guessed.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

import numpy as np

from .registry import CaseSpec

SMALL_TENSOR = 8  # tensors up to this many elements are written out exactly


def _literal(value: Any) -> str | None:
    """Source for a kwarg value, or None when it has no faithful literal."""
    import torch

    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
        return None if text in ("nan", "inf", "-inf") else text
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, (list, tuple)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [(_literal(k), _literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if isinstance(value, torch.Tensor):
        return _tensor_source(value)
    return None


def _dtype_arg(tensor: Any, default: Any) -> str:
    return "" if tensor.dtype == default else f", dtype={tensor.dtype}"


def _tensor_source(tensor: Any) -> str:
    import torch

    shape = ", ".join(str(d) for d in tensor.shape)
    if 0 < tensor.numel() <= SMALL_TENSOR and not tensor.is_complex() and tensor.dtype != torch.bfloat16:
        array = tensor.detach().cpu().numpy()
        if not array.dtype.kind == "f" or bool(np.isfinite(array).all()):
            inferred = (torch.get_default_dtype() if tensor.is_floating_point()
                        else torch.bool if tensor.dtype == torch.bool else torch.int64)  # what torch.tensor picks
            return f"torch.tensor({_values_text(array)}{_dtype_arg(tensor, inferred)})"
    if tensor.dtype == torch.bool:
        return f"torch.rand({shape}) > 0.5"
    if tensor.is_floating_point() or tensor.is_complex():
        return f"torch.rand({shape}{_dtype_arg(tensor, torch.float32)})"
    return f"torch.randint(0, 10, ({shape}{',' if tensor.dim() == 1 else ''}){_dtype_arg(tensor, torch.int64)})"


def _values_text(array: Any) -> str:
    """A nested list literal; floats in their shortest form that round-trips in the array's dtype."""
    if array.ndim == 0:
        value = array.item()
        if array.dtype.kind == "f":
            return np.format_float_positional(array, unique=True, trim="0")
        return repr(value)
    return "[" + ", ".join(_values_text(item) for item in array) + "]"


def _import_line(ref: str) -> tuple[str, str]:
    """(import statement, expression) for a dotted ref; the shortest importable module that reaches it."""
    parts = ref.split(".")
    for n in range(1, len(parts)):
        module_name = ".".join(parts[:n])
        try:
            obj: Any = sys.modules.get(module_name) or importlib.import_module(module_name)
            for attr in parts[n:]:
                obj = getattr(obj, attr)
        except Exception:
            continue
        return f"import {module_name}", ref
    return "", ref


def call_source(spec: CaseSpec) -> str:
    """The ``call`` field: builds ``fn`` and ``inputs``; "" when the target has no importable path."""
    import torch

    if spec.skip or not spec.ref:
        return ""
    lines = ["import torch"]
    target = spec.target
    ref = spec.ref
    is_module = isinstance(target, torch.nn.Module)
    if spec.method and is_module and ref.endswith("." + spec.method):
        ref = ref[: -len(spec.method) - 1]
    statement, expression = _import_line(ref)
    if not statement:
        return ""
    if statement != "import torch":
        lines.append(statement)
    if is_module:
        constructor = "()" if _takes_no_arguments(type(target)) else "(...)"
        lines.append(f"# the constructor arguments are in the case module {spec.origin or '(unknown)'}, "
                     f"case {spec.name!r}")
        callee = f"{expression}{constructor}"
        if spec.method:
            callee += f".{spec.method}"
    else:
        callee = expression
    arguments = [f"x{i}" for i in range(len(spec.inputs))]
    baked, unwritable = [], []
    for key, value in spec.kwargs.items():
        text = _literal(value)
        if text is None:
            unwritable.append(key)
        else:
            baked.append(f"{key}={text}")
    if unwritable:
        lines.append(f"# kwargs {', '.join(unwritable)} have no source form; see the case module "
                     f"{spec.origin or '(unknown)'}")
    if baked:
        lines.append(f"fn = lambda {', '.join(arguments)}: {callee}({', '.join(arguments + baked)})")
    else:
        lines.append(f"fn = {callee}")
    tensors = [_tensor_source(t) for t in spec.inputs]
    lines.append("inputs = (" + ", ".join(tensors) + ("," if len(tensors) == 1 else "") + ")")
    return "\n".join(lines)


def _takes_no_arguments(cls: type) -> bool:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in signature.parameters.values())
