"""How the user's own code built an object from tensors, so that a method of it is probed on those tensors.

``s = Se2.exp(v); s.log()``: probed as ``s.log`` bound to the object, the graph holds ``s``'s tensors as
constants, which is not what a user exports (and a constant the exporter cannot hold, a complex one, fails
where the user's graph does not). While examples and tests run, the recorder notes for each object that one
of the library's public callables returned to the user's own code (a function, a class, a classmethod, a
method of another such object) how it was built: a :class:`Built`, its tensor arguments cloned, an argument
that was itself built this way kept as its :class:`Built`. A recorded method call whose receiver (or an
argument) was built from tensors is then replayed as :class:`LiveCall`: the object rebuilt inside the graph
from those tensors, which are the case's live inputs.

Sound only when rebuilding gives the very object that was called: :func:`rebuilt_as_called` compares them
(tensors bit for bit); one changed in place after it was built, or built at random, stays baked, and the
case's note says why.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field
from typing import Any

from ...cases import containers
from ...cases.slice.equality import same_value


def holds_tensor(owner: Any) -> bool:
    """Whether an object holds a tensor (a quaternion's data, a module's weights, a box's corners)."""
    import torch

    if isinstance(owner, torch.Tensor):
        return False
    if isinstance(owner, torch.nn.Module):
        return any(True for _ in owner.parameters()) or any(True for _ in owner.buffers())
    data = None
    # only an attribute the object or its class defines: a library's __getattr__ fallback may do anything (kornia's
    # LazyLoader imports its module, which the user's code then finds already loaded)
    if inspect.getattr_static(owner, "data", None) is not None:
        try:
            data = getattr(owner, "data", None)
        except Exception:  # a property that raises its own error
            data = None
    return isinstance(data, torch.Tensor) or any(
        isinstance(v, torch.Tensor) for v in getattr(owner, "__dict__", {}).values())


@dataclass
class Built:
    """``function(*args, **kwargs)`` as the user's code called it, returning the object; ``method`` names the
    attribute when ``function`` is a method called on ``args[0]`` (``q.inv()``), "" otherwise."""

    function: Any
    args: tuple
    kwargs: dict[str, Any]
    ref: str  # the public dotted name of what was called (a class for a constructor)
    method: str = ""

    def reaches_tensor(self) -> bool:
        return any(isinstance(leaf, Built) and leaf.reaches_tensor() or _is_tensor(leaf)
                   for _, leaf in containers.walk([self.args, self.kwargs]))

    def text(self) -> str:
        """``Se2.exp(v)``, ``Boxes(boxes, mode='xyxy')`` as a note says it: a tensor or an object built in turn by
        its parameter's name, any other value written out (shortened)."""
        parts = self.ref.split(".")
        name = parts[-1] if inspect.isclass(self.function) else ".".join(parts[-2:])
        parameters = _parameter_names(self)
        shown = []
        for position, value in enumerate(self.args):
            label = parameters[position] if position < len(parameters) else f"arg{position}"
            shown.append(label if _is_tensor(value) or isinstance(value, Built) else _short(value))
        shown += [f"{k}={k if _is_tensor(v) or isinstance(v, Built) else _short(v)}" for k, v in self.kwargs.items()]
        if self.method:
            return f"{shown[0] if shown else 'self'}.{self.method}({', '.join(shown[1:])})"
        return f"{name}({', '.join(shown)})"


def _short(value: Any) -> str:
    """A plain value written out (shortened), any other object by its type: ``So2`` rather than its repr."""
    if value is not None and not isinstance(value, (bool, int, float, complex, str, tuple, list, dict)):
        return f"<{type(value).__name__}>"
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _is_tensor(value: Any) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _snapshot(value: Any, built_of: Any) -> Any:
    """An argument as the object was built from it: a tensor cloned, an object the user's code built kept as its
    :class:`Built`, anything else copied (kept itself when it refuses copying)."""
    if _is_tensor(value):
        return value.detach().clone()
    built = built_of(value)
    if built is not None:  # rebuilt by the same call, as the user's code builds it (``So2.identity(1)``)
        return built
    if type(value) in (list, tuple, dict):
        return containers.rebuild(value, lambda leaf: _snapshot(leaf, built_of), keep_types=False)
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


class BuiltObjects:
    """The objects built by the user's code during one example or test, by id (each kept alive, so that an id
    is not reused while its record stands)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Any, Built]] = {}

    def clear(self) -> None:
        self._by_id.clear()

    def of(self, value: Any) -> Built | None:
        entry = self._by_id.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def note(self, result: Any, function: Any, args: tuple, kwargs: dict[str, Any], ref: str,
             method: str = "") -> None:
        """Note that ``function(*args, **kwargs)`` built ``result`` (only an object that holds tensors)."""
        if result is None or not holds_tensor(result):
            return
        snap_args = tuple(_snapshot(a, self.of) for a in args)
        snap_kwargs = {k: _snapshot(v, self.of) for k, v in kwargs.items()}
        self._by_id[id(result)] = (result, Built(function, snap_args, snap_kwargs, ref, method))


def tensor_names(built: Built) -> list[str]:
    """A name for each tensor a :class:`Built` reaches, in :func:`rebuild`'s order: the parameter it was
    passed as (``v``; ``rotation.z`` for one inside an argument built in turn)."""
    names: list[str] = []

    def visit(node: Built, prefix: str) -> None:
        parameters = _parameter_names(node)
        for position, value in enumerate(node.args):
            label = parameters[position] if position < len(parameters) else f"arg{position}"
            leaf(value, prefix + label)
        for key, value in node.kwargs.items():
            leaf(value, prefix + key)

    def leaf(value: Any, label: str) -> None:
        for path, item in containers.walk(value, is_leaf=lambda v: isinstance(v, Built)):
            where = label + "".join(f"[{p!r}]" for p in path)
            if isinstance(item, Built):
                visit(item, where + ".")
            elif _is_tensor(item):
                names.append(where)

    visit(built, "")
    return names


def _parameter_names(built: Built) -> list[str]:
    try:
        parameters = list(inspect.signature(built.function).parameters)
    except (TypeError, ValueError):
        return []
    return parameters


def tensors_of(built: Built) -> list[Any]:
    """The tensors a :class:`Built` reaches, in order (the case's live inputs)."""
    found: list[Any] = []

    def visit(node: Built) -> None:
        for _, item in containers.walk([node.args, node.kwargs], is_leaf=lambda v: isinstance(v, Built)):
            if isinstance(item, Built):
                visit(item)
            elif _is_tensor(item):
                found.append(item)

    visit(built)
    return found


def rebuild(built: Built, tensors: list[Any]) -> tuple[Any, int]:
    """The object ``built`` describes, its tensors taken from ``tensors`` in order; (object, tensors used). An
    object argument built by the user's code is built again by its own call; any other is passed as recorded."""
    position = 0

    def value(item: Any) -> Any:
        nonlocal position
        if isinstance(item, Built):
            made, used = rebuild(item, tensors[position:])
            position += used
            return made
        if _is_tensor(item):
            position += 1
            return tensors[position - 1]
        if type(item) in (list, tuple, dict):
            return containers.rebuild(item, value, keep_types=False)
        return item  # as recorded (copied then): a copy made here would be traced (dynamo refuses deepcopy)

    args = [value(a) for a in built.args]
    kwargs = {k: value(v) for k, v in built.kwargs.items()}
    return built.function(*args, **kwargs), position


def rebuilt_as_called(built: Built, called: Any) -> str:
    """"" when rebuilding ``built`` from its own tensors gives ``called`` (the object as the method was called on
    it), else why not."""
    try:
        made, _ = rebuild(built, [t.clone() for t in tensors_of(built)])
    except Exception as exc:
        return f"rebuilding it from its tensors raised {type(exc).__name__}"
    if not same_value(made, called):
        return "rebuilt from its tensors it is not the object called (changed in place after it was built, or " \
               "built at random)"
    return ""


@dataclass
class LiveCall:
    """``receiver.method(...)`` with the receiver (and any argument built from tensors) rebuilt inside the call
    from the live tensors: ``target(*receiver_tensors, *argument_tensors, *call_tensors, **baked)``."""

    function: Any  # the method's function (unbound)
    receiver: Built
    arguments: dict[str, Built] = field(default_factory=dict)  # arguments built from tensors, by parameter
    names: list[str] = field(default_factory=list)  # the call's own tensor parameters
    method: str = ""
    leading: bool = True  # the call's own tensors are its leading parameters (passed by position, else by name)

    def __post_init__(self) -> None:
        # the fingerprint names a target by __module__/__qualname__: make it say what is called and how
        self.__module__ = getattr(self.function, "__module__", "")
        built = ", ".join(b.ref for b in (self.receiver, *self.arguments.values()))
        self.__qualname__ = f"{getattr(self.function, '__qualname__', self.method)}[rebuilt: {built}]"

    def __call__(self, *tensors: Any, **baked: Any) -> Any:
        receiver, used = rebuild(self.receiver, list(tensors))
        passed: dict[str, Any] = {}
        for name, built in self.arguments.items():
            passed[name], taken = rebuild(built, list(tensors[used:]))
            used += taken
        own = tensors[used:]
        if self.leading:
            return self.function(receiver, *own, **passed, **baked)
        return self.function(receiver, **dict(zip(self.names, own)), **passed, **baked)
