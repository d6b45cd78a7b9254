"""A recorded call as a case replays it: ``target(*tensors, **baked)``, tensors live, everything else baked.

Shared by docstring and test discovery. The arguments are bound to the callee's
signature. When the tensor arguments are its leading parameters the callee itself
is the target (``fn(*tensors, **baked)`` is the example's call); otherwise a small
by-keyword adapter is. Whether the call is random: randomness.py.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any

from .provenance import Built, LiveCall, holds_tensor, rebuilt_as_called, tensor_names, tensors_of
from .randomness import tensors_and_randomness
from .recording import Call
from ...base.errors import ProbeError

MAX_VALUE_TEXT = 40


class UnsupportedCall(ProbeError):
    """A recorded call that cannot be replayed as a case; the message says why."""


class KeywordCall:
    """``fn(name0=t0, name1=t1, **baked)`` for tensors that are not the leading parameters."""

    def __init__(self, function: Any, names: list[str]):
        self.function = function
        self.names = list(names)
        # the fingerprint names a target by __module__/__qualname__: make it say what is called and how
        self.__module__ = getattr(function, "__module__", "")
        self.__qualname__ = f"{getattr(function, '__qualname__', type(function).__name__)}[{', '.join(names)}]"

    def __call__(self, *tensors: Any, **baked: Any) -> Any:
        return self.function(**dict(zip(self.names, tensors)), **baked)


@functools.lru_cache(maxsize=None)
def _keyword_module_class() -> type:
    import torch

    class KeywordModuleCall(torch.nn.Module):
        """A module called with its tensors by keyword; the module stays a submodule (its weights are captured)."""

        def __init__(self, inner: Any, names: list[str]):
            super().__init__()
            self.inner = inner
            self.names = list(names)

        def forward(self, *tensors: Any, **baked: Any) -> Any:
            return self.inner(**dict(zip(self.names, tensors)), **baked)

        def extra_repr(self) -> str:
            return f"tensors by keyword: {', '.join(self.names)}"

        def __reduce__(self) -> tuple:
            # the class is made here (torch is imported on first use), so pickle (the discovery cache) cannot
            # find it by name: it is rebuilt through a module-level function instead
            return keyword_module_call, (self.inner, self.names, self.training)

    return KeywordModuleCall


def keyword_module_call(inner: Any, names: list[str], training: bool = True) -> Any:
    """A ``KeywordModuleCall`` around ``inner`` (how a pickled one is rebuilt)."""
    module = _keyword_module_class()(inner, names)
    module.training = training  # its own flag only: the inner module keeps the modes it was pickled with
    return module


def is_tensor(value: Any) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _plain_value(value: Any, depth: int = 0) -> bool:
    """A Python value a call can be written with: numbers, strings, None, dtypes, devices, and tuples, lists
    and dicts of them (not an array, not an object)."""
    import torch

    if value is None or isinstance(value, (bool, int, float, complex, str, torch.dtype, torch.device)):
        return True
    if depth < 3 and isinstance(value, (tuple, list)):
        return all(_plain_value(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict):
        return all(isinstance(k, str) and _plain_value(v, depth + 1) for k, v in value.items())
    return False


def _names_a_file(value: Any) -> bool:
    """A string argument that names a file or folder (``"cloud.ply"``, ``"out/test.jpg"``): the call reads or
    writes it, which a graph cannot, and the file the example or test made is gone when a worker replays it."""
    import os

    if not isinstance(value, str) or not value or "\n" in value:
        return False
    extension = os.path.splitext(value)[1][1:]
    return os.sep in value or (0 < len(extension) <= 5 and extension.isalnum() and not extension.isdigit())


def bound_instance(callee: Any) -> Any:
    """The object a method is bound to (None for a function, a classmethod's class or a module's function)."""
    owner = getattr(callee, "__self__", None)
    return None if owner is None or inspect.isclass(owner) or inspect.ismodule(owner) else owner


def probed_call(call: Call) -> bool:
    """Whether a recorded call is worth a case: it passes a tensor; or it is a method of an
    object that holds the tensors (``q.inv()``, ``boxes.compute_area()``); or every argument is a plain Python
    value (a factory: ``create_meshgrid(4, 5)``, ``Quaternion.identity(2)``), which probes a graph of constants.
    Whether the call returns a tensor is checked when it is replayed."""
    values = (*call.args, *call.kwargs.values())
    if any(is_tensor(v) for v in values):
        return True
    if any(_names_a_file(v) for v in values):
        return False
    import torch

    owner = bound_instance(call.callee)
    if owner is not None and holds_tensor(owner):
        return True
    if isinstance(call.callee, torch.nn.Module):
        return holds_tensor(call.callee)
    return all(_plain_value(v) for v in values)


def callee_signature(callee: Any) -> inspect.Signature:
    import torch

    target = callee.forward if isinstance(callee, torch.nn.Module) else callee
    try:
        return inspect.signature(target)
    except (TypeError, ValueError) as exc:
        raise UnsupportedCall(f"its signature cannot be read ({exc})") from None


def split_arguments(call: Call) -> tuple[list[str], list[Any], dict[str, Any], bool]:
    """(tensor parameter names, tensors, baked kwargs, tensors are the leading parameters)."""
    signature = callee_signature(call.callee)
    try:
        bound = signature.bind(*call.args, **call.kwargs)
    except TypeError as exc:
        raise UnsupportedCall(f"its arguments do not bind to the signature ({exc})") from None
    names, tensors, baked = [], [], {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            for key, item in value.items():
                if is_tensor(item):
                    names.append(key)
                    tensors.append(item)
                else:
                    baked[key] = item
            continue
        if kind is inspect.Parameter.VAR_POSITIONAL:
            if not value:
                continue
            if any(not is_tensor(v) for v in value) or names or baked:
                raise UnsupportedCall(f"*{name} holds Python values or follows other arguments, so the call "
                                      "cannot be replayed with its Python values baked")
            names += [f"{name}[{i}]" for i in range(len(value))]  # tensors only, first: passed positionally
            tensors += list(value)
            continue
        if kind is inspect.Parameter.POSITIONAL_ONLY and not is_tensor(value):
            raise UnsupportedCall(f"parameter {name!r} is positional-only, so the call cannot be replayed with "
                                  "its Python value baked")
        if is_tensor(value):
            names.append(name)
            tensors.append(value)
        else:
            baked[name] = value
    varargs = [p for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_POSITIONAL]
    if varargs and names and names[0].startswith(varargs[0].name + "["):
        passed = [n for n in names if not n.startswith(varargs[0].name + "[")]
        if passed:  # fn(*tensors, other=tensor): neither positional nor by keyword alone
            raise UnsupportedCall(f"tensors in *{varargs[0].name} and in {', '.join(passed)}: the call cannot be "
                                  "replayed as fn(*tensors, **baked)")
        return names, tensors, baked, True
    leading = list(signature.parameters)[: len(names)] == names and all(
        signature.parameters[n].kind is not inspect.Parameter.KEYWORD_ONLY for n in names)
    return names, tensors, baked, leading


def _value_text(value: Any) -> str:
    if is_tensor(value):
        return f"tensor{tuple(value.shape)}"
    text = repr(value)
    return text if len(text) <= MAX_VALUE_TEXT else text[: MAX_VALUE_TEXT - 3] + "..."


def _shape(tensor: Any) -> str:
    return "(" + ",".join(str(d) for d in tensor.shape) + ")"


@dataclass
class Replay:
    """A recorded call as a case replays it: ``target(*tensors, **baked)``."""

    names: list[str]  # the tensors' parameter names
    tensors: list[Any]
    baked: dict[str, Any]
    leading: bool  # the tensors are the callee's leading parameters (the callee itself is the target)
    target: Any
    random: bool
    rebuilt: list[str] = field(default_factory=list)  # what is rebuilt inside the graph (a LiveCall's objects)
    own: int = 0  # how many of ``names``/``tensors`` (the last ones) are the call's own tensor arguments
    unlifted: str = ""  # why the object a method is bound to (else the call, with no tensor input) is not live


def replay(call: Call) -> Replay:
    """How ``call`` is replayed as a case, after one run (or more, for randomness) of it; raises UnsupportedCall
    when it cannot be (no tensor argument, arguments that do not bind, no tensor in its result)."""
    import torch

    names, tensors, baked, leading = split_arguments(call)
    if not tensors and not probed_call(call):
        raise UnsupportedCall("no tensor argument, and its arguments are not plain Python values")
    callee = call.callee
    own = len(tensors)
    live, why = _live_call(call, names, baked, leading)
    rebuilt: list[str] = []
    if live is not None:
        target = live
        lifted = [(n, t) for b in (live.receiver, *live.arguments.values())
                  for n, t in zip(tensor_names(b), tensors_of(b))]
        prefixes = ["self."] * len(tensor_names(live.receiver)) + [
            f"{name}." for name, b in live.arguments.items() for _ in tensor_names(b)]
        names = [p + n for p, (n, _) in zip(prefixes, lifted)] + names
        tensors = [t for _, t in lifted] + tensors
        baked = {k: v for k, v in baked.items() if k not in live.arguments}
        rebuilt = [_rebuilt_text(b, name) for name, b in (("self", live.receiver), *live.arguments.items())]
    elif leading:
        target = callee
    elif isinstance(callee, torch.nn.Module):
        target = keyword_module_call(callee, names)
    else:
        target = KeywordCall(callee, names)
    holds_tensors, random_op = tensors_and_randomness(target, tensors, baked)
    if not holds_tensors:
        raise UnsupportedCall("it returns no tensor (a check, a Python object), so there is no output to compare")
    return Replay(names, tensors, baked, leading, target, random_op, rebuilt, own, why)


def _rebuilt_text(built: Built, name: str) -> str:
    return f"by {built.text()}" if name == "self" else f"{name} (by {built.text()})"


def _live_call(call: Call, names: list[str], baked: dict[str, Any], leading: bool) -> tuple[LiveCall | None, str]:
    """The call as :class:`~.provenance.LiveCall` when the object its method is bound to was built from tensors
    by the user's code (and rebuilds as called); else None and why nothing could be lifted."""
    import torch

    callee = call.callee
    owner = bound_instance(callee)
    if owner is None or not inspect.ismethod(callee):
        if isinstance(callee, torch.nn.Module):
            return None, "the module is called with Python values only"
        return None, "every argument is a Python value"
    if not holds_tensor(owner):
        return None, "it holds no tensor"
    arguments = {}  # arguments built from tensors by the user's code, rebuilt in the graph too (``v1.dot(v2)``)
    for name, value in baked.items():
        argument = call.built.get(id(value))
        if argument is not None and argument.reaches_tensor() and not rebuilt_as_called(argument, value):
            arguments[name] = argument
    built = call.built.get(id(owner))
    if built is None:
        return None, ("it was not built by a call of the library in the user's own lines (a fixture, a helper or "
                      "the library itself built it)")
    if not built.reaches_tensor() and not arguments:
        return None, f"it was built from Python values only, by {built.text()}"
    why = rebuilt_as_called(built, owner)
    if why:
        return None, why
    if leading and arguments:
        leading = False  # the lifted arguments go by keyword: so do the call's own tensors
    if not leading and any("[" in n for n in names):
        return None, "its tensors are passed as *args after arguments rebuilt from tensors"
    method = getattr(callee, "__name__", "")
    return LiveCall(callee.__func__, built, arguments, list(names), method, leading), ""


def live_and_baked(call: Call, replayed: Replay, built_in: str) -> str:
    """The note's account of a call: what is held (a module built in ``built_in``), live and baked."""
    import torch

    callee = call.callee
    live = ", ".join(f"{n} {_shape(t)}" for n, t in zip(replayed.names, replayed.tensors))
    held = f"nn.Module built in {built_in}; " if isinstance(callee, torch.nn.Module) else ""
    owner = bound_instance(callee)
    if owner is not None:
        # a plain object with tensor arguments beside it: nothing to say
        why = f", since {replayed.unlifted}" if holds_tensor(owner) or not replayed.tensors else ""
        held = f"the {type(owner).__name__} built in {built_in} is baked{why}; "
    if replayed.rebuilt:
        also = f", and so is {', '.join(replayed.rebuilt[1:])}" if replayed.rebuilt[1:] else ""
        held = f"the {type(owner).__name__} built in {built_in} {replayed.rebuilt[0]} is rebuilt in the graph{also}; "
    baked_text = ", ".join(f"{k}={_value_text(v)}" for k, v in replayed.baked.items())
    live = f"{live} live" if live else "no tensor input (a graph of the held tensors and constants)" + (
        "" if owner is not None else f", since {replayed.unlifted}")
    return (f"{held}{live}" + (f"; {baked_text} baked" if baked_text else "")
            + ("; random: values compared under torch.compile only (drawn as eager)" if replayed.random else ""))
