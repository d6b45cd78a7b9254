"""Where a case module holds one case's expressions: its ``case(name, target, inputs, ...)`` call (or a helper's
that passes them on), or the lambda a function case was compiled from."""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any

CASE_PARAMETERS = ("name", "target", "inputs")  # case()'s first positional parameters, as the slice reads them


def _is_case(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "case") or (isinstance(func, ast.Attribute)
                                                                   and func.attr == "case")


@lru_cache(maxsize=None)  # per module tree (slicer.module_tree keeps the trees): once, not once per case
def _wrappers(tree: ast.Module) -> dict[str, dict[str, tuple[int, str]]]:
    """The module's own helpers that pass their parameters on to ``case()`` (``def c(section, name, target,
    inputs, **kw): return case(name, target, inputs, ...)``): per helper, where each of case's name, target
    and inputs comes from (the helper's positional index and keyword)."""
    found: dict[str, dict[str, tuple[int, str]]] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        positional = [a.arg for a in (*statement.args.posonlyargs, *statement.args.args)]
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call) and _is_case(n.func)]
        if len(calls) != 1:
            continue
        sources: dict[str, tuple[int, str]] = {}
        call = calls[0]
        # read past a *args or **kw the helper passes on: only the three it names matter here
        before_star = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
        for index, parameter in enumerate(CASE_PARAMETERS):
            passed = call.args[index] if index < before_star else None
            passed = passed or next((k.value for k in call.keywords if k.arg == parameter), None)
            if isinstance(passed, ast.Name) and passed.id in positional:
                sources[parameter] = (positional.index(passed.id), passed.id)
        if set(sources) == set(CASE_PARAMETERS):
            found[statement.name] = sources
    return found


def case_call(tree: ast.Module, name: str) -> tuple[ast.stmt, ast.Call, dict[str, tuple[int, str]]] | None:
    """The top-level statement holding the one ``case(name, ...)`` call (or the one call of a helper of the
    module that passes its arguments on to ``case``), that call, and where it holds name, target and inputs."""
    direct = {parameter: (index, parameter) for index, parameter in enumerate(CASE_PARAMETERS)}
    wrappers = _wrappers(tree)
    found = []
    for statement in tree.body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            helper = node.func.id if isinstance(node.func, ast.Name) else None
            sources = direct if _is_case(node.func) else wrappers.get(helper or "")
            if sources is None:
                continue
            named = case_argument(node, *sources["name"])
            if isinstance(named, ast.Constant) and named.value == name:
                found.append((statement, node, sources))
    return found[0] if len(found) == 1 else None


def case_argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)



def lambda_statement(tree: ast.Module, code: Any) -> tuple[ast.stmt, ast.Lambda] | None:
    """The top-level statement holding the lambda ``code`` was compiled from, and the lambda; None when it
    cannot be told (two lambdas of the same parameters on one line)."""
    parameters = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = [(statement, node) for statement in tree.body for node in ast.walk(statement)
             if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
             and [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)] == parameters]
    return found[0] if len(found) == 1 else None
