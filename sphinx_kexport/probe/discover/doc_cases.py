"""Turn one recorded docstring call into a probe case: tensors live, everything else baked.

The arguments are bound to the callee's signature. When the tensor arguments
are its leading parameters the callee itself is the target (``fn(*tensors,
**baked)`` is the example's call); otherwise a small by-keyword adapter is.
``code`` rebuilds the target and inputs from the example's own lines, so a
repro runs as pasted.
"""

from __future__ import annotations

import ast
import builtins
import copy
import doctest
import functools
import inspect
import random
from dataclasses import dataclass
from typing import Any, Iterator

from .doc_run import EXAMPLE_SEED, Call, seed_everything
from ...snapshot.vocabulary import ORIGIN_DOCSTRING
from ..base.errors import ProbeError
from ..cases.module_copy import copy_module
from ..cases.registry import CaseSpec, case

DOC_NOTE_PREFIX = "from the docstring example of"
RANDOM_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8)  # deterministic callables run under each of them
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


def _holds_tensor(owner: Any) -> bool:
    """Whether an object a method is bound to holds a tensor (a quaternion's data, a module's weights)."""
    import torch

    if isinstance(owner, torch.nn.Module):
        return any(True for _ in owner.parameters()) or any(True for _ in owner.buffers())
    try:
        data = getattr(owner, "data", None)
    except Exception:  # a library's __getattr__ that recurses (kornia's random generators) or raises its own error
        data = None
    return isinstance(data, torch.Tensor) or any(
        isinstance(v, torch.Tensor) for v in getattr(owner, "__dict__", {}).values())


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
    if owner is not None and _holds_tensor(owner):
        return True
    if isinstance(call.callee, torch.nn.Module):
        return _holds_tensor(call.callee)
    return all(_plain_value(v) for v in values)


def _signature(callee: Any) -> inspect.Signature:
    import torch

    target = callee.forward if isinstance(callee, torch.nn.Module) else callee
    try:
        return inspect.signature(target)
    except (TypeError, ValueError) as exc:
        raise UnsupportedCall(f"its signature cannot be read ({exc})") from None


def split_arguments(call: Call) -> tuple[list[str], list[Any], dict[str, Any], bool]:
    """(tensor parameter names, tensors, baked kwargs, tensors are the leading parameters)."""
    signature = _signature(call.callee)
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


def _outputs_differ(first: list[Any], second: list[Any]) -> bool:
    import torch

    if len(first) != len(second):
        return True
    for a, b in zip(first, second):
        if a.shape != b.shape or a.dtype != b.dtype:
            return True
        if not torch.equal(a, b) and not (a.is_floating_point() and torch.allclose(a, b, equal_nan=True,
                                                                                   rtol=0, atol=0)):
            return True
    return False


def tensors_and_randomness(target: Any, tensors: list[Any], baked: dict[str, Any]) -> tuple[bool, bool]:
    """(the call's result holds a tensor, the call is random (see :func:`is_random`)), from as few runs as
    they need: the first run answers both (and, for a call that reads no random state, all of it). A call
    that raises here is kept (the probe reports it) and not random."""
    runs = _seeded_runs(target, tensors, baked)
    try:
        draws, outputs = next(runs)
    except Exception:
        return True, False
    if not outputs:
        return False, False
    return True, _random_from(draws, outputs, runs)


def is_random(target: Any, tensors: list[Any], baked: dict[str, Any]) -> bool:
    """The call draws random numbers, or runs under different seeds give different outputs (an
    exception counts as not random).

    A call watched by the dispatch mode that draws nothing, and leaves Python's
    and numpy's random state as the seed set it, cannot depend on the seed: one
    run decides (piq's PR example took 54 s of discovery running nine times).
    Otherwise up to ``len(RANDOM_SEEDS)`` runs, stopping at the first that
    differs from the first run: an augmentation applied with probability 0.5 to
    a batch of one gives the same output under two seeds half the time
    (kornia's ``RandomClahe`` example did under seeds 1 and 2, and its ONNX
    check then reported a mismatch).
    """
    return tensors_and_randomness(target, tensors, baked)[1]


def _seeded_runs(target: Any, tensors: list[Any], baked: dict[str, Any]) -> Iterator[tuple[bool | None, list]]:
    """(draws, flat outputs) of the call under each of RANDOM_SEEDS in turn, each on a fresh copy of a
    module; runs only as far as it is read. Raises what the call raises."""
    from ..measure.output_leaves import flatten_outputs

    import torch

    for seed in RANDOM_SEEDS:
        callee = copy_module(target).eval() if isinstance(target, torch.nn.Module) else target
        draws, result = _run_watching_draws(callee, tensors, baked, seed)
        yield draws, flatten_outputs(result)


def _random_from(draws: bool | None, first: list, more: Iterator[tuple[bool | None, list]]) -> bool:
    """Whether the call is random, given its first run (``draws``, ``first``) and the runs after it."""
    if draws is not None:  # watched: it drew (random), or read nothing the seed sets (not random)
        return draws
    try:
        for draws, outputs in more:
            if draws or _outputs_differ(first, outputs):
                return True
    except Exception:
        return False
    return False


@functools.lru_cache(maxsize=None)
def _random_draws_class() -> type:
    """A dispatch mode that notes whether a seeded random aten op (rand, bernoulli, randperm, ...) ran;
    built once (torch is imported only when discovery runs)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class RandomDraws(TorchDispatchMode):
        seen = False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
                self.seen = True
            return func(*args, **(kwargs or {}))

    return RandomDraws


def _run_watching_draws(callee: Any, tensors: list[Any], baked: dict[str, Any], seed: int
                        ) -> tuple[bool | None, Any]:
    """(whether the call ran a seeded random aten op, its result) under ``seed``; None for "not known":
    it read Python's or numpy's random state, or failed under the dispatch mode and was run plainly
    (its outputs decide then).

    Outputs alone miss a draw that happened to change nothing: kornia's RandomChannelShuffle on two
    channels kept their order under every seed tried, was registered checked, and its ONNX graph (which
    draws with onnxruntime's own generator) then read as a mismatch."""
    import torch

    states: list[Any] = []

    def call() -> Any:
        seed_everything(seed)
        states.append(_other_random_states())
        with torch.no_grad():
            result = callee(*[t.clone() for t in tensors], **copy.deepcopy(baked))
        states.append(_other_random_states())
        return result

    try:
        with _random_draws_class()() as mode:
            result = call()
    except Exception:
        return None, call()
    if mode.seen:
        return True, result
    return (False if states[0] == states[1] else None), result


def _other_random_states() -> tuple[Any, Any]:
    """Python's and numpy's global random state, comparable with ``==``."""
    try:
        import numpy
    except ImportError:
        return random.getstate(), None
    kind, key, position, has_gauss, gauss = numpy.random.get_state()
    return random.getstate(), (kind, key.tobytes(), position, has_gauss, gauss)


@dataclass
class Replay:
    """A recorded call as a case replays it: ``target(*tensors, **baked)``."""

    names: list[str]  # the tensors' parameter names
    tensors: list[Any]
    baked: dict[str, Any]
    leading: bool  # the tensors are the callee's leading parameters (the callee itself is the target)
    target: Any
    random: bool


def replay(call: Call) -> Replay:
    """How ``call`` is replayed as a case, after one run (or more, for randomness) of it; raises UnsupportedCall
    when it cannot be (no tensor argument, arguments that do not bind, no tensor in its result)."""
    import torch

    names, tensors, baked, leading = split_arguments(call)
    if not tensors and not probed_call(call):
        raise UnsupportedCall("no tensor argument, and its arguments are not plain Python values")
    callee = call.callee
    if leading:
        target = callee
    elif isinstance(callee, torch.nn.Module):
        target = keyword_module_call(callee, names)
    else:
        target = KeywordCall(callee, names)
    holds_tensors, random_op = tensors_and_randomness(target, tensors, baked)
    if not holds_tensors:
        raise UnsupportedCall("it returns no tensor (a check, a Python object), so there is no output to compare")
    return Replay(names, tensors, baked, leading, target, random_op)


def live_and_baked(call: Call, replayed: Replay, built_in: str) -> str:
    """The note's account of a call: what is held (a module built in ``built_in``), live and baked."""
    import torch

    callee = call.callee
    live = ", ".join(f"{n} {_shape(t)}" for n, t in zip(replayed.names, replayed.tensors))
    held = f"nn.Module built in {built_in}; " if isinstance(callee, torch.nn.Module) else ""
    owner = bound_instance(callee)
    if owner is not None:
        held = f"the {type(owner).__name__} built in {built_in} is baked; "
    baked_text = ", ".join(f"{k}={_value_text(v)}" for k, v in replayed.baked.items())
    live = f"{live} live" if live else "no tensor input (a graph of the held tensors and constants)"
    return (f"{held}{live}" + (f"; {baked_text} baked" if baked_text else "")
            + ("; random: outputs compared on count, shapes and finiteness only" if replayed.random else ""))


def build_case(call: Call, *, name: str, package: str, section: str, source_ref: str, test: Any) -> CaseSpec:
    """The case for ``call``, recorded in the example of ``source_ref`` (raises UnsupportedCall)."""
    replayed = replay(call)
    note = f"{DOC_NOTE_PREFIX} `{source_ref}`; {live_and_baked(call, replayed, 'the example')}"
    spec = case(name, replayed.target, replayed.tensors, replayed.baked, package=package, section=section, note=note,
                check=not replayed.random, ref=call.ref,
                code=example_code(call, test, replayed.names, replayed.leading))
    spec.origin = ORIGIN_DOCSTRING
    return spec


# --------------------------------------------------------------------------
# code: the example's own lines that build the target and inputs


def call_node(call: Call, source: str) -> ast.Call | None:
    if call.span is None:
        return None
    line, end_line, col, end_col = call.span
    lines = source.splitlines()
    if not (1 <= line <= end_line <= len(lines)):
        return None
    # positions count UTF-8 bytes
    chunk = [text.encode() for text in lines[line - 1:end_line]]
    if line == end_line:
        text = chunk[0][col:end_col]
    else:
        text = b"\n".join([chunk[0][col:], *chunk[1:-1], chunk[-1][:end_col]])
    try:
        node = ast.parse(text.decode(), mode="eval").body
    except (SyntaxError, UnicodeDecodeError):
        return None
    return node if isinstance(node, ast.Call) else None


def argument_sources(node: ast.Call, call: Call, names: list[str]) -> list[str] | None:
    """Source text of each live tensor argument, in ``names`` order; None when it cannot be told."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    if len(node.args) != len(call.args) or {k.arg for k in node.keywords} != set(call.kwargs):
        return None  # the span is another call (e.g. map(fn, ...)): do not guess
    signature = _signature(call.callee)
    positional = list(signature.parameters)[: len(node.args)]
    by_name = {p: ast.unparse(a) for p, a in zip(positional, node.args)}
    by_name.update({k.arg: ast.unparse(k.value) for k in node.keywords})
    if any(n not in by_name for n in names):
        return None
    return [by_name[n] for n in names]


def free_names(source: str) -> list[str]:
    tree = ast.parse(source)
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            assigned.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            assigned.add(node.name)
        elif isinstance(node, ast.arg):
            assigned.add(node.arg)
    loaded = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [n for n in dict.fromkeys(loaded) if n not in assigned and not hasattr(builtins, n)]


def _imports(names: list[str], globs: dict[str, Any]) -> list[str] | None:
    lines, from_home = [], []
    home = globs.get("__name__", "")
    for name in names:
        if name == "torch":
            continue
        if name not in globs:
            return None  # a name the example did not define and the module does not hold: cannot rebuild
        value = globs[name]
        if inspect.ismodule(value):
            lines.append(f"import {value.__name__}" if value.__name__ == name else f"import {value.__name__} as {name}")
        else:
            from_home.append(name)  # the docstring's module holds it (defined or re-exported there)
    if from_home:
        lines.append(f"from {home} import {', '.join(from_home)}")
    return lines


def example_code(call: Call, test: Any, names: list[str], leading: bool) -> str:
    """Statements that define ``target`` and ``inputs`` as the example built them; "" when unsure."""
    node = call_node(call, test.examples[call.statement].source)
    if node is None:
        return ""
    arguments = argument_sources(node, call, names)
    statement = ast.parse(test.examples[call.statement].source)
    if arguments is None or not all(isinstance(s, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign))
                                    for s in statement.body):
        return ""  # a call inside a loop, a def or a comprehension: its arguments are not top-level names
    callee = ast.unparse(node.func)
    body = [e.source.rstrip("\n") for e in test.examples[: call.statement]
            if e.exc_msg is None and not e.options.get(doctest.SKIP)]
    # one assignment, so that the example's own names (torchmetrics' `target` tensor) are read before
    # `target` is bound; a lambda calls the callee it was given, whatever the snippet binds later
    tail = target_lines(callee, arguments, names, leading)
    text = "\n".join(body + tail)
    try:
        free = free_names(text)
        imports = _imports(free, test.globs)
    except SyntaxError:
        return ""
    if imports is None:
        return ""
    return "\n".join(imports + seed_lines(free) + body + tail) + "\n"


def target_lines(callee: str, arguments: list[str], names: list[str], leading: bool) -> list[str]:
    """``target, inputs = callee, (args...)``: the call's callee and its live arguments' source, in one
    assignment; by keyword through a lambda when the tensors are not the callee's leading parameters."""
    packed = "(" + ", ".join(arguments) + ("," if len(arguments) == 1 else "") + ")"
    if leading:
        return [f"target, inputs = {callee}, {packed}"]
    params = ", ".join(f"t{i}" for i in range(len(names)))
    passed = ", ".join(f"{n}=t{i}" for i, n in enumerate(names))
    return [f"_kx_callee, inputs = {callee}, {packed}",
            f"target = lambda {params}, **baked: _kx_callee({passed}, **baked)"]


def seed_lines(free: list[str], seed: int = EXAMPLE_SEED, what: str = "example") -> list[str]:
    """The seeds the probe ran the example (or test) under (doc_run.seed_everything), so its random values match."""
    lines = [f"torch.manual_seed({seed})  # the seed the probe ran the {what} under"]
    if "random" in free:
        lines.append(f"random.seed({seed})")
    numpy_name = next((n for n in ("np", "numpy") if n in free), None)
    if numpy_name:
        lines.append(f"{numpy_name}.random.seed({seed})")
    return lines
