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

from .case_slice import case_source
from .registry import CaseSpec

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
        return _tensor_source(value)
    return None


def _dtype_arg(tensor: Any, default: Any) -> str:
    return "" if tensor.dtype == default else f", dtype={tensor.dtype}"


def _tensor_source(tensor: Any) -> str:
    import torch

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


def _literal_tensor(tensor: Any) -> str:
    """``torch.tensor([...], dtype=...)`` holding exactly ``tensor``'s values (bit for bit), or "" when it is
    too large, complex, or its shortest text does not rebuild it."""
    import torch

    from .case_slice import same_tensor

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


def _input_source(value: Any) -> str:
    """Source for one positional input: a tensor, or a dict, list or tuple of them."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_input_source(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_input_source(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_input_source(item) for item in value) + ("," if len(value) == 1 else "") + ")"
    return _tensor_source(value)


def _exact(value: Any) -> bool:
    """Whether ``_input_source`` writes the values themselves (not a random stand-in of the same shape)."""
    if isinstance(value, dict):
        return all(_exact(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return all(_exact(item) for item in value)
    return _tensor_source(value).startswith(("torch.tensor(", "torch.empty("))


def _import_line(ref: str) -> tuple[str, str]:
    """(import statement, expression) for a dotted ref: the module that defines it (the longest
    importable prefix), so that ``kornia.filters.blur`` imports ``kornia.filters``, not only ``kornia``."""
    parts = ref.split(".")
    for n in range(len(parts) - 1, 0, -1):
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
    statement, expression = _import_line(ref)
    if not statement:
        return ""
    exact_inputs = all(_exact(value) for value in spec.inputs)
    method = f".{spec.method}" if spec.method else ""
    if is_module and _is_default_instance(target):
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
    else:
        if statement != "import torch":
            lines.append(statement)
        lines += _callable_lines(spec, expression)
    lines += _inputs_lines(spec, exact_inputs)
    return "\n".join(lines)


def _cannot_rebuild(spec: CaseSpec, expression: str) -> str:
    """A line that stops the snippet: no code this module can find rebuilds the probed object exactly."""
    where = f"case {spec.name!r} in the case module {spec.module or '(unknown)'}"
    message = (f"this snippet cannot rebuild the probed {expression} instance exactly (its arguments or its "
               f"randomly initialised weights are not known here; see {where}); give the case code= that "
               "defines `target` as probed")
    return f"raise NotImplementedError({message!r})"


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

    cls = type(module)
    if not _takes_no_arguments(cls):
        return False
    try:
        with torch.random.fork_rng(devices=[]):  # building it must not move the caller's random stream
            fresh = cls()
    except Exception:
        return False
    if repr(fresh) != repr(module):
        return False
    mine, theirs = module.state_dict(), fresh.state_dict()
    return mine.keys() == theirs.keys() and all(
        mine[k].shape == theirs[k].shape and mine[k].dtype == theirs[k].dtype
        and torch.equal(mine[k].cpu(), theirs[k].cpu()) for k in mine)
