"""Python literals for values a case holds: kwargs, small tensors bit for bit.

The repro snippet (``call_source``) and the notes of cases from tests (``discover/suite/suite_cases``) write
values with these. Kept apart from ``call_source`` so that the discovery cache's key, which hashes the
code discovery imports, does not change when only the repro snippet's code does.
"""

from __future__ import annotations

from typing import Any

from .layouts import dense, from_dense_suffix, is_sparse, layout_name, parts
from .opaque import is_plain_container

SMALL_TENSOR = 256  # tensors up to this many elements are written out exactly


def literal_source(value: Any) -> str | None:
    """Source for a kwarg value, or None when it has no faithful literal."""
    import torch

    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
        return None if text in ("nan", "inf", "-inf") else text
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, (list, tuple, dict)) and not is_plain_container(value):
        return None  # a subclass (a library's tuple, say): a plain literal would not rebuild its type
    if isinstance(value, (list, tuple)):
        items = [literal_source(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [(literal_source(k), literal_source(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if isinstance(value, torch.Tensor):
        return tensor_source(value)
    return None


def _dtype_arg(tensor: Any, default: Any) -> str:
    return "" if tensor.dtype == default else f", dtype={tensor.dtype}"


def tensor_source(tensor: Any) -> str:
    import torch

    if is_sparse(tensor):
        return _sparse_source(tensor)
    shape = ", ".join(str(d) for d in tensor.shape)
    if tensor.numel() == 0:
        return f"torch.empty(({shape}{',' if tensor.dim() == 1 else ''}){_dtype_arg(tensor, torch.float32)})"
    literal = _literal_tensor(tensor)
    if literal:
        return literal
    if tensor.dtype == torch.bool:
        return f"torch.rand({shape}) > 0.5"
    if tensor.is_floating_point() or tensor.is_complex():
        return f"torch.rand({shape}{_dtype_arg(tensor, torch.float32)})"
    return f"torch.randint(0, 10, ({shape}{',' if tensor.dim() == 1 else ''}){_dtype_arg(tensor, torch.int64)})"


def _sparse_source(tensor: Any) -> str:
    """A sparse tensor as a graph library's user writes one: its dense values followed by the conversion
    (``torch.tensor([[0., 1.], [1., 0.]]).to_sparse()``) while they are small; else its indices and values
    (``torch.sparse_coo_tensor(indices, values, size)``) while those are; else a random stand-in of its shape
    and layout."""
    values = dense(tensor.detach().cpu())
    if values.numel() <= SMALL_TENSOR:
        return tensor_source(values) + from_dense_suffix(tensor)
    return _from_parts(tensor) or tensor_source(values) + from_dense_suffix(tensor)


def _from_parts(tensor: Any) -> str:
    """``torch.sparse_<layout>_tensor(<its parts>, size)`` holding exactly ``tensor``'s parts, or "" when one
    has no literal (too large, no element)."""
    import torch

    stored = tensor.detach().cpu()
    texts = [_literal_tensor(part) for part in parts(stored)]
    if not all(texts):
        return ""
    layout = layout_name(stored)
    size = ", ".join(str(d) for d in stored.shape) + ("," if stored.dim() == 1 else "")
    text = f"torch.{layout}_tensor({', '.join(texts)}, ({size}))"
    if layout == "sparse_coo" and stored.is_coalesced():
        text += ".coalesce()"
    try:
        rebuilt = eval(text, {"torch": torch})  # noqa: S307 - our own literal text, checked part for part
    except Exception:
        return ""
    same = rebuilt.layout == stored.layout and all(same_tensor(a, b) for a, b in zip(parts(rebuilt), parts(stored)))
    return text if same else ""


def _literal_tensor(tensor: Any) -> str:
    """``torch.tensor([...], dtype=...)`` holding exactly ``tensor``'s values (bit for bit), or "" when it is
    too large, complex, or its shortest text does not rebuild it."""
    import torch

    if not 0 < tensor.numel() <= SMALL_TENSOR or tensor.is_complex():
        return ""
    inferred = (torch.get_default_dtype() if tensor.is_floating_point()
                else torch.bool if tensor.dtype == torch.bool else torch.int64)  # what torch.tensor picks
    values = tensor.detach().cpu()
    array = (values.double() if values.dtype == torch.bfloat16 else values).numpy()
    for shortest in (True, False):  # shortest text in the tensor's dtype; else the exact double
        text = f"torch.tensor({_values_text(array, shortest)}{_dtype_arg(tensor, inferred)})"
        try:
            rebuilt = eval(text, {"torch": torch})  # noqa: S307 - our own literal text, checked bit for bit
        except Exception:
            continue
        if same_tensor(rebuilt, values):
            return text
    return ""


def _values_text(array: Any, shortest: bool = True) -> str:
    """A nested list literal: floats in their shortest form that round-trips in the array's dtype (or
    the exact double of the value), non-finite ones as float('nan') / float('inf')."""
    if array.ndim == 0:
        value = array.item()
        if array.dtype.kind != "f":
            return repr(value)
        if value != value:
            return 'float("nan")'
        if value in (float("inf"), float("-inf")):
            return ("-" if value < 0 else "") + 'float("inf")'
        return str(array[()]) if shortest else repr(float(value))
    return "[" + ", ".join(_values_text(item, shortest) for item in array) + "]"


def same_tensor(a: Any, b: Any) -> bool:
    import torch

    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    if a.dtype != b.dtype or a.shape != b.shape or a.device != b.device:
        return False
    a, b = a.detach(), b.detach()
    if a.is_floating_point() or a.is_complex():
        a, b = torch.view_as_real(a) if a.is_complex() else a, torch.view_as_real(b) if b.is_complex() else b
        both_nan = torch.isnan(a) & torch.isnan(b)
        return bool(((a == b) | both_nan).all()) and torch.equal(torch.signbit(a), torch.signbit(b))
    return torch.equal(a, b)
