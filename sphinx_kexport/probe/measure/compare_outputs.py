"""Flatten what a case returns into tensors, and compare a captured run with eager.

The rules are strict on purpose: identical shapes, exact booleans, NaN in the
same places, then ``allclose`` with the case's tolerances. A random operator
(``check=False``) is compared on output count, shapes and finiteness only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


def flatten_outputs(obj: Any) -> tuple[torch.Tensor, ...]:
    """Every tensor in ``obj``, in a stable order.

    It runs inside the captured forward, so it sticks to plain loops that
    dynamo and torch.export trace without a graph break.
    """
    found: list[torch.Tensor] = []
    _collect(obj, found)
    return tuple(found)


# a number is no output: eagerly a Python number, under a capture a symbolic one, whose node leads to the whole
# shape environment (walking its __dict__ never ended: RANSAC.verify returns a float and an int)
_NUMBERS = (bool, int, float, complex, str, bytes, torch.SymBool, torch.SymInt, torch.SymFloat)


def _collect(obj: Any, found: list[torch.Tensor]) -> None:
    if obj is None or isinstance(obj, _NUMBERS):
        return
    if isinstance(obj, torch.Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _collect(item, found)
    elif isinstance(obj, dict):
        for key in obj:
            _collect(obj[key], found)
    elif isinstance(getattr(obj, "data", None), torch.Tensor):  # boxes, keypoints, Lie groups, images
        found.append(obj.data)
    elif isinstance(obj, torch.nn.Module):
        if type(obj).forward is not torch.nn.Module.forward:
            return  # a layer or a model (a factory's result): its weights are not the call's output
        # a value held in a module (kornia's So3, Se3, Quaternion): its tensors, by attribute name. Built inside
        # a capture, such a module keeps them as plain attributes (no parameter can be made there); built
        # eagerly, as parameters or buffers: by name, both read the same tensors in the same order
        for key in _held_names(obj, _module_held):
            _collect(getattr(obj, key, None), found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _collect(getattr(obj, f.name), found)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
        for key in _held_names(obj, lambda o: list(vars(o))):
            _collect(getattr(obj, key, None), found)


# The attribute names a value object holds its outputs in, by class. They are read once, from the eager
# step's output (every case runs eagerly first, in the same process), because walking ``vars(obj)`` inside a
# capture is itself a graph break under torch 2.9.1's dynamo ("does not know how to trace method `items` of
# class <unknown type>"): every kornia Lie group, camera and pose read "ok-breaks" there, for the probe's
# own reading of the result. Inside the capture the names are constants, read with getattr.
_HELD: dict[type, tuple[str, ...]] = {}


def _module_held(module: torch.nn.Module) -> list[str]:
    names = [*module._parameters, *module._buffers, *module._modules]
    return names + [k for k, v in vars(module).items() if isinstance(v, (torch.Tensor, torch.nn.Module))]


def _held_names(obj: Any, read: Any) -> tuple[str, ...]:
    names = _HELD.get(type(obj))
    if names is None or not torch.compiler.is_compiling():  # eagerly: learn (and widen) the class's names
        seen = set(read(obj)) | set(names or ())
        names = _HELD[type(obj)] = tuple(sorted(seen)) if isinstance(obj, torch.nn.Module) else \
            tuple(dict.fromkeys([*(names or ()), *read(obj)]))
    return names


def to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
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
        if why:
            problems.append(f"out{i}: {why}" if len(reference) > 1 else why)
    if problems:
        return Verdict(False, "; ".join(problems)[:300], largest)
    return Verdict(True)


def _as_exported(ref: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Eager's complex output as the ONNX exporter writes it (a real pair in a last dimension of 2) when the
    captured output is so; else as it is."""
    if np.iscomplexobj(ref) and not np.iscomplexobj(got) and got.shape == ref.shape + (2,):
        return np.stack([ref.real, ref.imag], axis=-1)
    return ref


def check_shapes_and_finite(reference: tuple[torch.Tensor, ...], captured: list[Any]) -> Verdict:
    """What a random operator can be held to: output count, shapes, finite floating values."""
    if len(reference) != len(captured):
        return Verdict(False, f"{len(captured)} outputs, eager returns {len(reference)}")
    problems = []
    for i, (ref, got) in enumerate(zip(reference, captured)):
        g = to_numpy(got)
        r = _as_exported(to_numpy(ref), g)
        label = f"out{i}: " if len(reference) > 1 else ""
        if r.shape != g.shape:
            problems.append(f"{label}shape {_shape(g)}, eager {_shape(r)}")
        elif (np.issubdtype(g.dtype, np.inexact) and not np.isfinite(g).all()
              and np.isfinite(r).all()):  # eager's own NaN/inf are not the capture's fault
            problems.append(f"{label}non-finite values where eager has none")
    return Verdict(not problems, "; ".join(problems)[:300])
