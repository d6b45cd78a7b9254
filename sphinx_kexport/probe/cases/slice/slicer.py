"""The top-level statements of a module that define a set of names, transitively, in module order.

A name imported from a helper module beside the case module (``from _inputs import rand``: importable only
from the case modules' folder, which a user's fresh interpreter does not have on its path) is written out from
the helper's own source instead (:func:`inline_helpers`).
"""

from __future__ import annotations

import ast
import builtins
import sys
from pathlib import Path

SEED_CALLS = ("manual_seed", "seed")
MAX_DEPTH = 6  # how deep helper modules importing helper modules are written out

_trees: dict[str, ast.Module | None] = {}


def module_tree(origin: str) -> ast.Module | None:
    """The parsed source of the loaded module ``origin`` (read once), None when it cannot be read."""
    if origin not in _trees:
        module = sys.modules.get(origin)
        path = getattr(module, "__file__", None)
        try:
            with open(path, encoding="utf-8") as handle:  # type: ignore[arg-type]
                _trees[origin] = ast.parse(handle.read())
        except (OSError, TypeError, SyntaxError, ValueError):
            _trees[origin] = None
    return _trees[origin]


def bound_names(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"}
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def loaded_names(node: ast.AST) -> set[str]:
    """Names read anywhere in ``node`` (an over-estimate of its free names: extra ones are just not found)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {n for n in names if not hasattr(builtins, n)}


def _free(statement: ast.stmt) -> set[str]:
    """Names a statement reads from the module: a def's or class's own locals and parameters excluded."""
    loaded = loaded_names(statement)
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        local = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        local |= {a.arg for a in ast.walk(statement) if isinstance(a, ast.arg)}
        local |= {h.name for h in ast.walk(statement) if isinstance(h, ast.ExceptHandler) and h.name}
        local |= {n.name for n in ast.walk(statement) if n is not statement and isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        return loaded - local - {statement.name}
    return loaded


def _is_seed(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr in SEED_CALLS)


def top_level_slice(tree: ast.Module, before: ast.stmt | None, needed: set[str],
                    upto: ast.stmt | None = None) -> list[ast.stmt] | None:
    """The top-level statements before ``before`` (or up to ``upto`` included; neither: the whole module) that
    define ``needed``, transitively, in module order."""
    if before is not None:
        body = tree.body[: tree.body.index(before)]
    else:
        body = tree.body if upto is None else tree.body[: tree.body.index(upto) + 1]
    kept: list[ast.stmt] = []
    needed = set(needed)
    for statement in reversed(body):
        bound = bound_names(statement)
        if bound & needed:
            if isinstance(statement, ast.AugAssign):
                return None  # a value built up in steps: not worth slicing
            kept.append(statement)
            needed -= bound
            needed |= _free(statement)
        elif _is_seed(statement) and any(not isinstance(s, (ast.Import, ast.ImportFrom)) for s in kept):
            kept.append(statement)
            needed |= loaded_names(statement)
    if needed - {"torch"}:
        return None  # a name the module does not define at top level (a star import, a loop variable)
    return list(reversed(kept))


def _helper_tree(statement: ast.stmt, origin: str) -> ast.Module | None:
    """The source of the module ``from X import ...`` reads when X is a file beside the case module ``origin``
    (a helper of the case modules, not an installed package), else None."""
    if not isinstance(statement, ast.ImportFrom) or statement.level or not statement.module:
        return None
    case_file = getattr(sys.modules.get(origin), "__file__", None)
    helper_file = getattr(sys.modules.get(statement.module), "__file__", None)
    if not case_file or not helper_file or Path(helper_file).resolve().parent != Path(case_file).resolve().parent:
        return None
    return module_tree(statement.module)


def inline_helpers(statements: list[ast.stmt], origin: str, depth: int = 0) -> list[ast.stmt] | None:
    """``statements`` with each import from a helper beside the case module replaced by the helper's statements
    that define the imported names (``as`` names bound after them); None when a helper cannot be sliced."""
    out: list[ast.stmt] = []
    for statement in statements:
        tree = _helper_tree(statement, origin)
        if tree is None:
            out.append(statement)
            continue
        names = statement.names  # type: ignore[attr-defined]
        if depth >= MAX_DEPTH or any(alias.name == "*" for alias in names):
            return None
        part = top_level_slice(tree, None, {alias.name for alias in names})
        part = inline_helpers(part, statement.module, depth + 1) if part is not None else None  # type: ignore
        if part is None:
            return None
        out.extend(part)
        out.extend(ast.parse(f"{alias.asname} = {alias.name}").body[0]
                   for alias in names if alias.asname and alias.asname != alias.name)
    return out
