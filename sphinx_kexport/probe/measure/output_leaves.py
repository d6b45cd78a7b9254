"""Every tensor a case's call returns, in a stable order: the outputs eager and each capture are compared on.

Apart from the comparisons (``compare_outputs``) because discovery reads outputs this way too (its
randomness check), and the discovery cache's key hashes the code discovery imports: a change to how
outputs are compared does not run every docstring example again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

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
        known = dict.fromkeys([*(names or ()), *read(obj)])  # a plain object's in the order it holds them
        names = _HELD[type(obj)] = tuple(sorted(known) if isinstance(obj, torch.nn.Module) else known)
    return names
