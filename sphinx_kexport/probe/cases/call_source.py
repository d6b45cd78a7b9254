"""Python source that rebuilds a case's callable as ``fn`` and its inputs as ``inputs``.

The page and ``probe repro`` turn it into a copyable repro (``torch.onnx.export(fn, inputs,
dynamo=True)`` and friends). A case's ``code`` (source that defines ``target``, and optionally
``inputs``, exactly as probed) is used as given. Otherwise it is built from the registration:
the module that defines the target (``import kornia.filters``, not ``import kornia``), a module
target's constructor only when a default-constructed one is the probed one, the kwargs' reprs,
and the inputs (exact values for small tensors, containers kept). What cannot be written as
source is said in a comment, never guessed.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

from .slice.case_source import case_source, function_source
from .containers import walk
from .literals import literal_source, tensor_source
from .opaque import address_free_repr
from .registry import CaseSpec
from ...snapshot.repro_landmarks import cannot_rebuild

def _input_source(value: Any) -> str:
    """Source for one positional input: a tensor, or a dict, list or tuple of them."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_input_source(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_input_source(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_input_source(item) for item in value) + ("," if len(value) == 1 else "") + ")"
    return tensor_source(value)


def _exact(value: Any) -> bool:
    """Whether ``_input_source`` writes the values themselves (not a random stand-in of the same shape)."""
    return all(tensor_source(leaf).startswith(("torch.tensor(", "torch.empty(", "torch.sparse_"))
               for _, leaf in walk(value))


def _resolve(ref: str) -> tuple[str, Any] | None:
    """(the longest importable module prefix of ``ref``, the object ``ref`` names), or None."""
    parts = ref.split(".")
    for n in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:n])
        try:
            obj: Any = sys.modules.get(module_name) or importlib.import_module(module_name)
            for attr in parts[n:]:
                obj = getattr(obj, attr)
        except Exception:
            continue
        return module_name, obj
    return None


def call_source(spec: CaseSpec) -> str:
    """The ``call`` field: builds ``fn`` and ``inputs``; "" when the target has no importable path."""
    import torch

    if spec.skip or not (spec.ref or spec.code):
        return ""
    if spec.code:
        return _from_code(spec)
    lines = ["import torch"]
    target = spec.target
    ref = spec.ref
    is_module = isinstance(target, torch.nn.Module)
    is_object = not (is_module or inspect.isfunction(target) or inspect.isbuiltin(target)
                     or inspect.ismethod(target) or inspect.isclass(target))  # a callable instance
    if spec.method and (is_module or is_object) and ref.endswith("." + spec.method):
        ref = ref[: -len(spec.method) - 1]
    found = _resolve(ref)  # the module that defines it, so that ``kornia.filters.blur`` imports kornia.filters
    if found is None:
        return ""
    statement, expression = f"import {found[0]}", ref
    exact_inputs = all(_exact(value) for value in spec.inputs)
    method = f".{spec.method}" if spec.method else ""
    # ``ref()`` stands for the probed module only when it names the module's own class: the case module's
    # wrapper (``_LoFTR()`` around ``kornia.feature.LoFTR``) is rebuilt from the case's expression instead
    if is_module and found[1] is type(target) and _is_default_instance(target):
        if statement != "import torch":
            lines.append(statement)
        lines += _callable_lines(spec, f"{expression}(){method}")
    elif is_module or is_object:  # built with arguments: rebuilt from the case's own expression, or refused
        built = (None if exact_inputs else case_source(spec, target=True, inputs=True)) \
            or case_source(spec, target=True, inputs=False)
        if built is None:
            return "\n".join(lines + [statement, _cannot_rebuild(spec, expression)])
        lines += built.split("\n")[1:]  # without its own `import torch`
        lines += _callable_lines(spec, f"target{method}")
        if "\ninputs = " in "\n" + built:
            return "\n".join(lines)
    elif not _is_the_target(found[1], target):  # the case's own function around the API: its source, or refused
        built = function_source(spec)
        if built is None:
            return "\n".join(lines + [_cannot_rebuild_function(spec, expression)])
        lines += built.split("\n")[1:]
        lines += _callable_lines(spec, "target")
    else:
        if statement != "import torch":
            lines.append(statement)
        lines += _callable_lines(spec, expression)
    lines += _inputs_lines(spec, exact_inputs)
    return "\n".join(lines)


def _cannot_rebuild(spec: CaseSpec, expression: str) -> str:
    """A line that stops the snippet: no code this module can find rebuilds the probed object exactly."""
    where = f"case {spec.name!r} in the case module {spec.module or '(unknown)'}"
    return cannot_rebuild(f"the probed {expression} instance exactly (its arguments or its randomly initialised "
                          f"weights are not known here; see {where}); give the case code= that defines `target` as "
                          "probed")


def _is_the_target(obj: Any, target: Any) -> bool:
    """Whether ``obj`` (what the case's ref names) is the probed function itself (or the same method of the
    same object)."""
    if obj is target:
        return True
    if inspect.ismethod(target) and inspect.ismethod(obj):
        return obj.__func__ is target.__func__ and obj.__self__ is target.__self__
    return False


def _cannot_rebuild_function(spec: CaseSpec, expression: str) -> str:
    """A line that stops the snippet: the probed callable is the case's own function around ``expression``."""
    target = spec.target
    name = getattr(target, "__qualname__", "") or repr(target)
    where = f"case {spec.name!r} in the case module {spec.module or '(unknown)'}"
    if inspect.ismethod(target):
        what = f"{name} bound to the {type(target.__self__).__name__} object the case built"
    else:
        what = f"the case's own function {name} around {expression}, not {expression} itself"
    return cannot_rebuild(f"the probed callable: it is {what} (see {where}); give the case code= that defines "
                          "`target` as probed")


def _from_code(spec: CaseSpec) -> str:
    """The case's own source for ``target`` (and maybe ``inputs``), then ``fn`` and, if needed, ``inputs``."""
    code = spec.code.strip("\n")
    lines = ["import torch", code[len("import torch\n"):] if code.startswith("import torch\n") else code]
    lines += _callable_lines(spec, "target" + (f".{spec.method}" if spec.method else ""))
    if not _defines(spec.code, "inputs"):
        lines += _inputs_lines(spec, all(_exact(value) for value in spec.inputs))
    return "\n".join(lines)


def _defines(code: str, name: str) -> bool:
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
               for node in ast.walk(tree))


def _inputs_lines(spec: CaseSpec, exact: bool) -> list[str]:
    """``inputs = (...)``: the values themselves when small, else the case's own expressions (checked
    bit for bit), else random values of the probed shapes and dtypes, said so."""
    line = "inputs = (" + ", ".join(_input_source(value) for value in spec.inputs) + \
        ("," if len(spec.inputs) == 1 else "") + ")"
    if exact:
        return [line]
    built = case_source(spec, target=False, inputs=True)
    if built:
        return built.split("\n")[1:]
    return ["# random values of the probed shapes and dtypes (the case drew its own; give the case code= "
            "that defines `inputs` to pin them)", line]


def _callable_lines(spec: CaseSpec, callee: str) -> list[str]:
    lines: list[str] = []
    arguments = [f"x{i}" for i in range(len(spec.inputs))]
    baked, unwritable = [], []
    for key, value in spec.kwargs.items():
        text = literal_source(value)
        if text is None:
            unwritable.append(key)
        else:
            baked.append(f"{key}={text}")
    if unwritable:
        lines.append(f"# kwargs {', '.join(unwritable)} have no source form; see the case module "
                     f"{spec.module or '(unknown)'}")
    if baked:
        lines.append(f"fn = lambda {', '.join(arguments)}: {callee}({', '.join(arguments + baked)})")
    else:
        lines.append(f"fn = {callee}")
    return lines


def _takes_no_arguments(cls: type) -> bool:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in signature.parameters.values())


def _is_default_instance(module: Any) -> bool:
    """Whether ``type(module)()`` rebuilds the probed module: same structure, same parameters and buffers."""
    import torch

    from ..base.network import network_blocked

    cls = type(module)
    if not _takes_no_arguments(cls):
        return False
    try:
        # building it must not move the caller's random stream, nor download: a default that fetches
        # pretrained weights (kornia's DeFMO) would otherwise reach for the network from the inventory's
        # child, and kornia's downloader retries a failed lookup with back-off
        with torch.random.fork_rng(devices=[]), network_blocked():
            fresh = cls()
    except Exception:
        return False
    if address_free_repr(fresh) != address_free_repr(module):
        return False
    mine, theirs = module.state_dict(), fresh.state_dict()
    return mine.keys() == theirs.keys() and all(
        mine[k].shape == theirs[k].shape and mine[k].dtype == theirs[k].dtype
        and torch.equal(mine[k].cpu(), theirs[k].cpu()) for k in mine)
