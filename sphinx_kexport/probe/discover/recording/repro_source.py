"""A repro's source from the lines that made a recorded call: the call's own node, its arguments' source, the
names the lines read, ``target, inputs = ...`` and the seeds (shared by docstring and test discovery)."""

from __future__ import annotations

import ast
import builtins
import inspect
from typing import Any

from .call_replay import callee_signature
from .recording import Call


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
    """Source text of each live tensor argument, in ``names`` order; None when it cannot be told.
    A last ``*out`` argument stands for the recorded arguments it spread: the i-th of them is ``[*out][i]``."""
    if any(k.arg is None for k in node.keywords) or {k.arg for k in node.keywords} != set(call.kwargs):
        return None
    written = _spread(node.args, len(call.args))
    if written is None:
        return None  # the span is another call (e.g. map(fn, ...)): do not guess
    parameters = list(callee_signature(call.callee).parameters.values())
    star = next((i for i, p in enumerate(parameters) if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    by_name = {}
    for index, argument in enumerate(written):
        if star is not None and index >= star:  # fn(*args): the i-th is "args[i]", as call_replay names it
            by_name[f"{parameters[star].name}[{index - star}]"] = argument
        elif index < len(parameters):
            by_name[parameters[index].name] = argument
    by_name.update({k.arg: ast.unparse(k.value) for k in node.keywords})
    if any(n not in by_name for n in names):
        return None
    return [by_name[n] for n in names]


def _spread(args: list[ast.expr], count: int) -> list[str] | None:
    """Source of each of the ``count`` positional arguments a call received, from its written arguments; a
    starred one is allowed last only (what it spread is then known by position); None when they do not fit."""
    starred = [i for i, a in enumerate(args) if isinstance(a, ast.Starred)]
    if not starred:
        return [ast.unparse(a) for a in args] if len(args) == count else None
    if starred != [len(args) - 1] or count < len(args) - 1:
        return None
    spread = ast.unparse(args[-1].value)  # type: ignore[attr-defined]
    return [ast.unparse(a) for a in args[:-1]] + [f"[*{spread}][{i}]" for i in range(count - len(args) + 1)]


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


def seed_lines(free: list[str], seed: int, what: str) -> list[str]:
    """The seeds the probe ran the example (or test) under (recording.seed_everything), so its random values match."""
    lines = [f"torch.manual_seed({seed})  # the seed the probe ran the {what} under"]
    if "random" in free:
        lines.append(f"random.seed({seed})")
    numpy_name = next((n for n in ("np", "numpy") if n in free), None)
    if numpy_name:
        lines.append(f"{numpy_name}.random.seed({seed})")
    return lines


def _importable(ref: str) -> str | None:
    """The longest prefix of ``ref`` that is an imported module (what the snippet imports), or None."""
    import sys

    parts = ref.split(".")
    for n in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:n]) in sys.modules:
            return ".".join(parts[:n])
    return None


def live_code(target: Any) -> str:
    """Statements that define ``target`` as a :class:`~.provenance.LiveCall` probes it: a function of the live
    tensors (``t0, t1, ...``, in the case's order) that builds the objects from them through the library's public
    names, then calls the method; "" when a value has no source form or a name cannot be imported."""
    from ...cases.containers import walk
    from ...cases.literals import literal_source
    from .provenance import Built

    modules: set[str] = set()
    count = 0

    def expression(value: Any) -> str | None:
        nonlocal count
        if isinstance(value, Built):
            return built_expression(value)
        if getattr(value, "shape", None) is not None and hasattr(value, "dtype"):  # a tensor: the next input
            count += 1
            return f"t{count - 1}"
        if isinstance(value, (list, tuple, dict)) and any(
                isinstance(leaf, Built) or hasattr(leaf, "dtype") for _, leaf in walk(value)):
            return None  # tensors inside a container: their order in the call is not written here
        return literal_source(value)

    def arguments(args: tuple, kwargs: dict[str, Any]) -> list[str] | None:
        texts = [expression(a) for a in args] + [
            None if (text := expression(v)) is None else f"{k}={text}" for k, v in kwargs.items()]
        return None if any(t is None for t in texts) else texts  # type: ignore[return-value]

    def built_expression(built: Built) -> str | None:
        if built.method:
            texts = arguments(built.args, built.kwargs)
            return None if not texts else f"{texts[0]}.{built.method}({', '.join(texts[1:])})"
        module = _importable(built.ref)
        texts = arguments(built.args, built.kwargs)
        if module is None or texts is None:
            return None
        modules.add(module)
        return f"{built.ref}({', '.join(texts)})"

    receiver = built_expression(target.receiver)
    lifted = {name: built_expression(b) for name, b in target.arguments.items()}
    if receiver is None or any(v is None for v in lifted.values()):
        return ""
    own = [f"t{count + i}" for i in range(len(target.names))]
    passed = own if target.leading else [f"{n}={t}" for n, t in zip(target.names, own)]
    passed += [f"{name}={text}" for name, text in lifted.items()]
    parameters = ", ".join([f"t{i}" for i in range(count + len(own))] + ["**baked"])
    call = f"{receiver}.{target.method}({', '.join(passed + ['**baked'])})"
    imports = [f"import {m}" for m in sorted(modules)]
    return "\n".join(imports + [f"def target({parameters}):",
                                "    # the object is built inside the call from the live tensors, as probed",
                                f"    return {call}", ""])
