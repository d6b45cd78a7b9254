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
import builtins
import inspect
import random
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from .literals import same_tensor
from .opaque import address_free_repr, dict_items, sequence_items
from .registry import IMPORT_SEED

# names the repro snippet binds after the call: a slice that binds them could be broken by the snippet
SNIPPET_NAMES = frozenset({"fn", "inputs", "target", "model", "Probe", "leaves", "on_cuda", "expected", "got",
                           "exported", "onnx_program", "session", "arrays", "feed", "out", "ref", "exc", "onnx",
                           "onnxruntime"})
SEED_CALLS = ("manual_seed", "seed")
MAX_DEPTH = 6
# how deep two values are compared (each object costs two levels: it, then its attributes' dict): a model
# whose plain state nests config dataclasses (kornia's SOLD2: DetectorCfg, then BackboneCfg) needs eight
VALUE_DEPTH = 8
SEED_LINE = f"torch.manual_seed({IMPORT_SEED})  # the seed the probe imports case modules under"

_trees: dict[str, ast.Module | None] = {}


def _module_tree(origin: str) -> ast.Module | None:
    if origin not in _trees:
        module = sys.modules.get(origin)
        path = getattr(module, "__file__", None)
        try:
            with open(path, encoding="utf-8") as handle:  # type: ignore[arg-type]
                _trees[origin] = ast.parse(handle.read())
        except (OSError, TypeError, SyntaxError, ValueError):
            _trees[origin] = None
    return _trees[origin]


CASE_PARAMETERS = ("name", "target", "inputs")  # case()'s first positional parameters, as the slice reads them


def _is_case(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "case") or (isinstance(func, ast.Attribute)
                                                                   and func.attr == "case")


@lru_cache(maxsize=None)  # per module tree (the trees are kept in _trees): once, not once per case
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


def _case_call(tree: ast.Module, name: str) -> tuple[ast.stmt, ast.Call, dict[str, tuple[int, str]]] | None:
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
            named = _argument(node, *sources["name"])
            if isinstance(named, ast.Constant) and named.value == name:
                found.append((statement, node, sources))
    return found[0] if len(found) == 1 else None


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"}
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _loaded(node: ast.AST) -> set[str]:
    """Names read anywhere in ``node`` (an over-estimate of its free names: extra ones are just not found)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {n for n in names if not hasattr(builtins, n)}


def _free(statement: ast.stmt) -> set[str]:
    """Names a statement reads from the module: a def's or class's own locals and parameters excluded."""
    loaded = _loaded(statement)
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
        bound = _bound(statement)
        if bound & needed:
            if isinstance(statement, ast.AugAssign):
                return None  # a value built up in steps: not worth slicing
            kept.append(statement)
            needed -= bound
            needed |= _free(statement)
        elif _is_seed(statement) and any(not isinstance(s, (ast.Import, ast.ImportFrom)) for s in kept):
            kept.append(statement)
            needed |= _loaded(statement)
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
    return _module_tree(statement.module)


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


def _source(statements: list[ast.stmt], seeded: bool, tail: list[str]) -> str:
    lines = ["import torch"] + ([SEED_LINE] if seeded else [])
    for statement in statements:
        text = ast.unparse(statement)
        if text != "import torch":
            # a blank line after a def or class, so that the snippet also pastes into an interactive python
            lines.append(text + ("\n" if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                 ast.ClassDef)) else ""))
    return "\n".join(lines + tail)


def run_fresh(code: str) -> dict[str, Any] | None:
    """``code`` run in a fresh namespace, leaving every random stream as it was; None if it raises."""
    import numpy
    import torch

    namespace: dict[str, Any] = {"__name__": "__kexport_repro__"}
    python_state, numpy_state = random.getstate(), numpy.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            # dont_inherit: this module's `from __future__ import annotations` must not reach the code, which a
            # user's fresh interpreter runs without it (a dataclass it defines would look its types up by name)
            exec(compile(code, "<case source>", "exec", dont_inherit=True), namespace)
    except Exception:
        return None
    finally:
        random.setstate(python_state)
        numpy.random.set_state(numpy_state)
    return namespace


def case_source(spec: Any, *, target: bool, inputs: bool) -> str | None:
    """Source (starting ``import torch``) that defines ``target`` equal to the probed one and/or ``inputs``
    bit-identical to the probed ones, from the case's own expressions; None when that cannot be shown."""
    tree = _module_tree(spec.module) if spec.module else None
    found = _case_call(tree, spec.name) if tree is not None else None
    if found is None or not (target or inputs):
        return None
    statement, call, sources = found
    tail, needed = [], set()
    if target:
        expression = _argument(call, *sources["target"])
        if expression is None:
            return None
        tail.append(f"target = {ast.unparse(expression)}")
        needed |= _loaded(expression)
    if inputs:
        expression = _argument(call, *sources["inputs"])
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
        needed |= _loaded(expression)
    statements = top_level_slice(tree, statement, needed)
    statements = inline_helpers(statements, spec.module) if statements is not None else None
    if statements is None or any(_bound(s) & SNIPPET_NAMES for s in statements):
        return None
    for seeded in (False, True):
        code = _source(statements, seeded, tail)
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
    tree = _module_tree(spec.module) if spec.module else None
    if tree is None or getattr(module, "__file__", None) != target.__code__.co_filename:
        return None
    if target.__name__ == "<lambda>":
        found = _lambda_statement(tree, target.__code__)
        if found is None:
            return None
        statement, node = found
        local = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        statements = top_level_slice(tree, statement, _loaded(node) - local)
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
    if statements is None or any(_bound(s) & SNIPPET_NAMES for s in statements):
        return None
    for seeded in (False, True):
        text = _source(statements, seeded, [tail])
        namespace = run_fresh(text)
        if namespace is not None and same_function(namespace.get("target"), target):
            return text
    return None


def _lambda_statement(tree: ast.Module, code: Any) -> tuple[ast.stmt, ast.Lambda] | None:
    """The top-level statement holding the lambda ``code`` was compiled from, and the lambda; None when it
    cannot be told (two lambdas of the same parameters on one line)."""
    parameters = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = [(statement, node) for statement in tree.body for node in ast.walk(statement)
             if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
             and [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)] == parameters]
    return found[0] if len(found) == 1 else None


def same_function(a: Any, b: Any, depth: int = 0, comparing: frozenset[tuple[int, int]] = frozenset()) -> bool:
    """Whether function ``a`` (rebuilt from source) does what the probed ``b`` does: the same bytecode and
    constants, and every module-level name it reads the same value (a helper function: the same, in turn)."""
    if a is b or (id(a), id(b)) in comparing:  # a pair already being compared (a function reads itself) holds
        return True
    if depth > MAX_DEPTH or not (inspect.isfunction(a) and inspect.isfunction(b)) or a.__closure__ or b.__closure__:
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


# --------------------------------------------------------------------------
# equality as "the same thing was probed": tensors bit for bit, modules by structure and state


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
