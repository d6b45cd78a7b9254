"""The case module's own source for one case's target and inputs, checked to rebuild what was probed.

``case("Flip", T.Flip(spatial_axis=0), [chw], ...)``: the expressions
``T.Flip(spatial_axis=0)`` and ``[chw]``, plus the module's top-level
statements they need (``import monai.transforms as T``, ``chw = rand(1, 32, 32)``,
``def rand(...)``), in module order, after the seed the loader imports case
modules under. A name imported from a helper module beside the case module
(``from _inputs import rand``: importable only from the case modules' folder,
which a user's fresh interpreter does not have on its path) is written out from
the helper's own source instead. The result is only offered when running it in a fresh
namespace gives an equal target (same type name and state) or bit-identical
inputs; otherwise None, and the caller says it cannot be rebuilt.
"""

from __future__ import annotations

import ast
import inspect
import sys
from typing import Any

from .case_call import case_argument, case_call, lambda_statement
from .equality import same_function, same_value
from .sandbox import run_fresh, snippet_source
from .slicer import bound_names, inline_helpers, loaded_names, module_tree, top_level_slice

# names the repro snippet binds after the call: a slice that binds them could be broken by the snippet
SNIPPET_NAMES = frozenset({"fn", "inputs", "target", "model", "Probe", "leaves", "on_cuda", "expected", "got",
                           "exported", "onnx_program", "session", "arrays", "feed", "out", "ref", "exc", "onnx",
                           "onnxruntime"})


def case_source(spec: Any, *, target: bool, inputs: bool) -> str | None:
    """Source (starting ``import torch``) that defines ``target`` equal to the probed one and/or ``inputs``
    bit-identical to the probed ones, from the case's own expressions; None when that cannot be shown."""
    tree = module_tree(spec.module) if spec.module else None
    found = case_call(tree, spec.name) if tree is not None else None
    if found is None or not (target or inputs):
        return None
    statement, call, sources = found
    tail, needed = [], set()
    if target:
        expression = case_argument(call, *sources["target"])
        if expression is None:
            return None
        tail.append(f"target = {ast.unparse(expression)}")
        needed |= loaded_names(expression)
    if inputs:
        expression = case_argument(call, *sources["inputs"])
        if expression is None:
            return None
        if isinstance(expression, (ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in expression.elts):
                return None
            items = [ast.unparse(e) for e in expression.elts]
            tail.append("inputs = (" + ", ".join(items) + ("," if len(items) == 1 else "") + ")")
        else:  # case() takes a list, a tuple or one input
            text = ast.unparse(expression)
            tail.append(f"inputs = {text}\ninputs = tuple(inputs) if isinstance(inputs, (list, tuple)) "
                        "else (inputs,)")
        needed |= loaded_names(expression)
    statements = top_level_slice(tree, statement, needed)
    statements = inline_helpers(statements, spec.module) if statements is not None else None
    if statements is None or any(bound_names(s) & SNIPPET_NAMES for s in statements):
        return None
    for seeded in (False, True):
        code = snippet_source(statements, seeded, tail)
        namespace = run_fresh(code)
        if namespace is None:
            continue
        if target and not same_value(namespace.get("target"), spec.target):
            continue
        if inputs and not same_value(list(namespace.get("inputs", ())), list(spec.inputs)):
            continue
        return code
    return None


def function_source(spec: Any) -> str | None:
    """Source (starting ``import torch``) that defines ``target`` as the case's own function: a lambda
    (``c("plane", "Hyperplane.from_vector", lambda n, e: Hyperplane.from_vector(Vector3(n), Vector3(e)), ...)``)
    or a function the case module defines at top level (``def _fitted_centres(points): ...``), with the
    module's top-level statements it reads; offered only when the rebuilt function is the probed one
    (:func:`same_function`), else None."""
    target = spec.target
    if not inspect.isfunction(target) or target.__closure__:
        return None  # a function made inside a helper function closes over its arguments: not top-level source
    module = sys.modules.get(spec.module or "")
    tree = module_tree(spec.module) if spec.module else None
    if tree is None or getattr(module, "__file__", None) != target.__code__.co_filename:
        return None
    if target.__name__ == "<lambda>":
        found = lambda_statement(tree, target.__code__)
        if found is None:
            return None
        statement, node = found
        local = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        statements = top_level_slice(tree, statement, loaded_names(node) - local)
        tail = f"target = {ast.unparse(node)}"
    else:
        if getattr(module, target.__name__, None) is not target:
            return None  # a nested or renamed function: its name does not find it at the module's top level
        defs = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == target.__name__]
        if not defs:
            return None
        # the last definition of the name is the one the module holds; the slice ends with it
        statements = top_level_slice(tree, None, {target.__name__}, upto=defs[-1])
        tail = f"target = {target.__name__}"
    statements = inline_helpers(statements, spec.module or "") if statements is not None else None
    if statements is None or any(bound_names(s) & SNIPPET_NAMES for s in statements):
        return None
    for seeded in (False, True):
        text = snippet_source(statements, seeded, [tail])
        namespace = run_fresh(text)
        if namespace is not None and same_function(namespace.get("target"), target):
            return text
    return None
