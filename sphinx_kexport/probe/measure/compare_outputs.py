"""Compare a captured run's outputs with eager.

The rules are strict on purpose: the same layout (dense, or which sparse one), identical shapes, exact
booleans, NaN in the same places, then ``allclose`` with the case's tolerances (a sparse tensor by its dense
values). A random operator (``check=False``) that a path cannot draw as eager draws is compared on output
count, rank, dtype and finiteness only (:func:`check_random`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..cases.layouts import STRIDED, dense, layout_name, layout_words


def to_numpy(value: Any) -> np.ndarray:
    """The values of an output or input as an array; a sparse tensor's dense values (its layout is compared
    apart: :func:`compare`)."""
    if isinstance(value, torch.Tensor):
        value = dense(value.detach().cpu())
        if value.dtype == torch.bfloat16:
            value = value.float()
        if value.is_complex():
            return value.resolve_conj().numpy()
        return value.numpy()
    return np.asarray(value)


@dataclass
class Verdict:
    same: bool
    detail: str = ""
    max_abs_diff: float | None = None


def _shape(a: np.ndarray) -> str:
    return "(" + ", ".join(str(d) for d in a.shape) + ")"


def _compare_one(ref: np.ndarray, got: np.ndarray, atol: float, rtol: float) -> tuple[str, float | None]:
    """"" when close, else why; plus the largest absolute difference when it can be computed."""
    ref = _as_exported(ref, got)
    if ref.shape != got.shape:
        return f"shape {_shape(got)}, eager {_shape(ref)}", None
    if ref.dtype == np.bool_ or got.dtype == np.bool_:
        wrong = int(np.count_nonzero(ref.astype(bool) != got.astype(bool)))
        return (f"{wrong} of {ref.size} booleans differ" if wrong else ""), (1.0 if wrong else 0.0)
    a = ref.astype(np.complex128 if np.iscomplexobj(ref) else np.float64)
    b = got.astype(a.dtype)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    diff_max = None
    both = ~(nan_a | nan_b)
    if both.any():
        finite = both & np.isfinite(a) & np.isfinite(b)
        diff_max = float(np.abs(a[finite] - b[finite]).max()) if finite.any() else 0.0
    if (nan_a != nan_b).any():
        return (f"NaN in different places (eager {int(nan_a.sum())}, captured {int(nan_b.sum())} NaNs)",
                diff_max)
    a, b = a[both], b[both]
    close = np.isclose(b, a, atol=atol, rtol=rtol)  # |b - a| <= atol + rtol * |a|: eager is the reference
    if close.all():
        return "", diff_max
    return (f"max abs diff {diff_max:.3g} at {int((~close).sum())} of {close.size} elements "
            f"(atol {atol:g}, rtol {rtol:g})"), diff_max


def compare(reference: tuple[torch.Tensor, ...], captured: list[Any], atol: float, rtol: float) -> Verdict:
    """Compare eager ``reference`` with ``captured`` outputs (tensors or numpy arrays)."""
    if len(reference) != len(captured):
        return Verdict(False, f"{len(captured)} outputs, eager returns {len(reference)}")
    problems, largest = [], None
    for i, (ref, got) in enumerate(zip(reference, captured)):
        why, diff = _compare_one(to_numpy(ref), to_numpy(got), atol, rtol)
        if diff is not None:
            largest = diff if largest is None else max(largest, diff)
        why = "; ".join(filter(None, [_layout_differs(ref, got), why]))
        if why:
            problems.append(f"out{i}: {why}" if len(reference) > 1 else why)
    if problems:
        return Verdict(False, "; ".join(problems)[:300], largest)
    return Verdict(True)


def _layout_differs(ref: Any, got: Any) -> str:
    """"" when both are dense or both sparse of the same layout, else what each is: a path that returns the
    dense values of eager's sparse tensor returns another kind of tensor (an array is dense)."""
    want, have = layout_name(ref), layout_name(got) if isinstance(got, torch.Tensor) else STRIDED
    if want == have:
        return ""
    return f"a {layout_words(have)} tensor where eager returns a {layout_words(want)} one"


def _as_exported(ref: np.ndarray, got: np.ndarray, same_size: bool = True) -> np.ndarray:
    """Eager's complex output as the ONNX exporter writes it (a real pair in a last dimension of 2) when the
    captured output is so; else as it is. ``same_size=False``: the sizes may differ (a random operator's are
    drawn), only the rank and the last dimension of 2 tell."""
    pair = got.shape == ref.shape + (2,) if same_size else got.shape[ref.ndim:] == (2,)
    if np.iscomplexobj(ref) and not np.iscomplexobj(got) and pair:
        return np.stack([ref.real, ref.imag], axis=-1)
    return ref


def check_random(reference: tuple[Any, ...], captured: list[Any]) -> Verdict:
    """What a random operator drawn otherwise than eager draws can be held to: output count, rank, dtype and
    finite floating values. Not the sizes: an edge dropout's or a random graph's size is itself drawn
    (random_draws.py says which path draws as eager does, and is compared in full)."""
    if len(reference) != len(captured):
        return Verdict(False, f"{len(captured)} outputs, eager returns {len(reference)}")
    problems = []
    for i, (ref, got) in enumerate(zip(reference, captured)):
        g = to_numpy(got)
        r = _as_exported(to_numpy(ref), g, same_size=False)
        label = f"out{i}: " if len(reference) > 1 else ""
        if r.ndim != g.ndim:
            problems.append(f"{label}{g.ndim} dimensions, eager {r.ndim}")
        elif _dtype_differs(ref, r, g):
            problems.append(f"{label}dtype {g.dtype}, eager {r.dtype}")
        elif (np.issubdtype(g.dtype, np.inexact) and not np.isfinite(g).all()
              and np.isfinite(r).all()):  # eager's own NaN/inf are not the capture's fault
            problems.append(f"{label}non-finite values where eager has none")
    return Verdict(not problems, "; ".join(problems)[:300])


def _dtype_differs(eager: Any, ref: np.ndarray, got: np.ndarray) -> bool:
    """A tensor's dtype must be kept; a Python number's only its kind (ONNX returns a float as float32)."""
    if isinstance(eager, torch.Tensor):
        return ref.dtype != got.dtype
    return ref.dtype.kind != got.dtype.kind
