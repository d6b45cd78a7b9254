"""Equality as "the same thing was probed": tensors bit for bit, modules by structure and state, functions by
their code and the module-level values they read."""

from __future__ import annotations

import inspect
from typing import Any

from ..literals import same_tensor
from ..opaque import address_free_repr, dict_items, sequence_items

# how deep the helper functions a function reads are compared
FUNCTION_DEPTH = 6
# how deep two values are compared (each object costs two levels: it, then its attributes' dict): a model
# whose plain state nests config dataclasses (kornia's SOLD2: DetectorCfg, then BackboneCfg) needs eight
VALUE_DEPTH = 8


def same_function(a: Any, b: Any, depth: int = 0, comparing: frozenset[tuple[int, int]] = frozenset()) -> bool:
    """Whether function ``a`` (rebuilt from source) does what the probed ``b`` does: the same bytecode and
    constants, and every module-level name it reads the same value (a helper function: the same, in turn)."""
    if a is b or (id(a), id(b)) in comparing:  # a pair already being compared (a function reads itself) holds
        return True
    if depth > FUNCTION_DEPTH or not (inspect.isfunction(a) and inspect.isfunction(b)) or a.__closure__ \
            or b.__closure__:
        return False
    if not _same_code(a.__code__, b.__code__) or not same_value(a.__defaults__, b.__defaults__, depth + 1):
        return False
    comparing = comparing | {(id(a), id(b))}
    for name in _global_names(b.__code__):
        if name not in b.__globals__:
            continue  # a builtin, or an attribute name
        if name not in a.__globals__:
            return False
        mine, theirs = a.__globals__[name], b.__globals__[name]
        if not (same_function(mine, theirs, depth + 1, comparing) if inspect.isfunction(theirs)
                else same_value(mine, theirs, depth + 1)):
            return False
    return True


def _same_code(a: Any, b: Any) -> bool:
    if a.co_code != b.co_code or a.co_names != b.co_names or a.co_varnames != b.co_varnames:
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if inspect.iscode(x) and inspect.iscode(y):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _global_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _global_names(const)
    return names



def _same_type(a: Any, b: Any) -> bool:
    return type(a) is type(b) or type(a).__qualname__ == type(b).__qualname__  # a class the slice defines again


def same_value(a: Any, b: Any, depth: int = 0) -> bool:
    """Whether ``a`` is the probed ``b``: by identity, tensors bit for bit, containers and object state recursively.
    An object that refuses a question it need not answer (e3nn's ``Irrep`` refuses ``len()``) is read around it
    (:mod:`.opaque`); one that still refuses is not known to be the same: False, and the repro says it cannot
    rebuild it."""
    try:
        return _same_value(a, b, depth)
    except Exception:
        return False


def _same_value(a: Any, b: Any, depth: int) -> bool:
    import numpy
    import torch

    if a is b:
        return True
    if depth > VALUE_DEPTH or not _same_type(a, b) or _is_code(a):
        return False  # functions, methods and classes: only the very same object (checked above)
    if isinstance(a, torch.Tensor):
        return same_tensor(a, b)
    if isinstance(a, numpy.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(numpy.array_equal(a, b, equal_nan=a.dtype.kind
                                                                                     in "fc"))
    if isinstance(a, torch.nn.Module):
        mine, theirs = a.state_dict(), b.state_dict()
        return (address_free_repr(a) == address_free_repr(b) and a.training == b.training
                and mine.keys() == theirs.keys() and all(same_tensor(mine[k], theirs[k]) for k in mine)
                and same_value(_plain_state(a), _plain_state(b), depth + 1))
    if isinstance(a, (list, tuple)):  # a subclass's own attributes too (its items read past its overrides)
        mine, theirs = sequence_items(a), sequence_items(b)
        return (len(mine) == len(theirs) and all(same_value(x, y, depth + 1) for x, y in zip(mine, theirs))
                and same_value(getattr(a, "__dict__", None), getattr(b, "__dict__", None), depth + 1))
    if isinstance(a, dict):
        mine, theirs = dict_items(a), dict_items(b)
        return (len(mine) == len(theirs) and all(same_value(k, j, depth + 1) and same_value(x, y, depth + 1)
                                                 for (k, x), (j, y) in zip(mine, theirs)))
    if isinstance(a, (type(None), bool, int, float, complex, str, bytes, torch.dtype, torch.device, range)):
        return a == b or (isinstance(a, float) and a != a and b != b)
    if hasattr(a, "__dict__"):
        return same_value(vars(a), vars(b), depth + 1)
    return False  # no way to tell: not the same as far as a repro is concerned


def _is_code(value: Any) -> bool:
    return (inspect.isfunction(value) or inspect.ismethod(value) or inspect.isbuiltin(value)
            or inspect.isclass(value) or inspect.ismodule(value))


def _plain_state(module: Any) -> dict[str, Any]:
    """A module's attributes other than its parameters, buffers and submodules (compared via state_dict)."""
    skip = {"_parameters", "_buffers", "_modules", "training"}
    return {k: v for k, v in vars(module).items() if k not in skip and not k.startswith("_")}
