"""Turn the calls a library's tests made into cases: which calls are kept, their names and notes, their repro.

A test suite calls an operator many times, mostly the same way. Up to
``per_operator`` configurations of each operator are kept, first come (tests
run in pytest's fixed order, so every process keeps the same ones): a call is
kept when its configuration (the tensors' names, shapes and dtypes, the baked
arguments, the module or object it is bound to) differs from every kept call
of that operator. Names are ``op[test]``, ``op[test 2]``, ...

Discovery measures float32: a call made while the default dtype is another
(e3nn's autouse ``float_tolerance`` fixture sets float64 for half its runs) or
with a float64 tensor is not kept (:func:`other_dtype`), however the test set the
dtype. A kept call is replayed once after its test ended, fixtures torn down, as the
probe's eager step will run it (:func:`outside_its_test`): one that worked only in a
global mode the test set (e3nn's ``set_optimization_defaults(jit_mode="inductor")``)
is listed as not running outside its test, not left to fail as the operator's eager
failure.

The repro snippet (``code``) is the test's own lines: the module-level
statements they need (imports, constants, helpers), the parametrised
arguments as literals, each fixture the lines read inlined (its function's
source, then ``name = fixture()``), the test body's statements before the
call, then ``target, inputs = ...`` from the call's own source. It is run once
in a fresh namespace and kept only when it rebuilds the target and inputs;
otherwise a function's repro is written from its ref and inputs (cases/call_source.py),
and a module's or method's snippet says why it cannot be written.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import re
import textwrap
from collections import Counter
from typing import Any

from ..recording.call_replay import Replay, bound_instance, live_and_baked, replay, split_arguments
from ..recording.provenance import LiveCall
from ..recording.recording import Call, first_line
from ..recording.repro_source import argument_sources, call_node, free_names, live_code, seed_lines, target_lines
from ..library import case_base_name
from ..sandbox import ExampleTimeout, time_limit
from .suite_run import TEST_SEED, NodeSource
from ...cases import containers
from ...cases.literals import literal_source
from ...cases.opaque import address_free_repr
from ...cases.slice.sandbox import run_fresh
from ...cases.slice.slicer import top_level_slice
from ...cases.inventory import SuiteRef
from ...cases.registry import CaseSpec, case
from ....snapshot.repro_landmarks import cannot_rebuild
from ....snapshot.vocabulary import CPU, ORIGIN_TEST

TEST_NOTE_PREFIX = "from the test"
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def configuration(call: Call) -> tuple[Any, ...]:
    """What makes two calls of one operator different cases: the tensors (names, shapes, dtypes), the baked
    arguments and what the callable is bound to (a module's structure and settings); UnsupportedCall when the
    arguments do not bind."""
    import torch

    names, tensors, baked, _ = split_arguments(call)
    live = tuple((name, tuple(t.shape), str(t.dtype)) for name, t in zip(names, tensors))
    callee = call.callee
    holder = callee if isinstance(callee, torch.nn.Module) else bound_instance(callee)
    bound = "" if holder is None else \
        hashlib.sha256(_ADDRESS.sub("", repr(holder)).encode()).hexdigest()[:16]
    return live, _ADDRESS.sub("", repr(sorted(baked.items()))), bound


def other_dtype(args: tuple, kwargs: dict[str, Any]) -> str:
    """Why a call ran in another dtype than float32, "" when it did not: the default dtype at call time (a
    fixture's or the test's ``torch.set_default_dtype``), or a float64 tensor among its arguments."""
    import torch

    default = torch.get_default_dtype()
    if default != torch.float32:
        return f"ran while the default dtype was {default} (set by the test or its fixtures)"
    for _, leaf in containers.leaves([*args, *kwargs.values()], "arguments"):
        if isinstance(leaf, torch.Tensor) and leaf.dtype == torch.float64:
            return f"received a {leaf.dtype} tensor"
    return ""


def outside_its_test(spec: CaseSpec, limit: float) -> str:
    """"" when the case runs once now, after its test ended, as the probe's eager step runs it (a copy of the
    target, fresh inputs); else why not (a call that works only in a mode the test set and reset)."""
    from ...measure.case_run import CaseRun

    case_run = CaseRun(spec, CPU)
    try:
        with time_limit(limit):
            case_run.wrapper()(*case_run.inputs())
    except ExampleTimeout as exc:
        return str(exc)
    except Exception as exc:
        return first_line(exc)
    finally:
        case_run.release()
    return ""


class Selection:
    """The configurations kept so far, per operator, and the names given (deterministic: first come)."""

    def __init__(self, per_operator: int):
        self.per_operator = per_operator
        self.kept: dict[str, dict[tuple, str]] = {}  # ref -> configuration -> the case's name
        self.used: Counter[str] = Counter()

    def why_not(self, ref: str, key: tuple) -> str:
        """"" when a call of ``ref`` with this configuration is wanted; else why not."""
        kept = self.kept.get(ref, {})
        if key in kept:
            return f"same configuration as {kept[key]}"
        if len(kept) >= self.per_operator:
            return f"{self.per_operator} configuration(s) of it kept already"
        return ""

    def next_name(self, ref: str) -> str:
        base = case_base_name(ref)
        count = self.used[base] + 1
        return f"{base}[test]" if count == 1 else f"{base}[test {count}]"

    def keep(self, ref: str, key: tuple, name: str) -> None:
        self.kept.setdefault(ref, {})[key] = name
        self.used[case_base_name(ref)] += 1


def build_suite_case(call: Call, *, name: str, package: str, section: str, source: NodeSource,
                     ref: SuiteRef) -> CaseSpec:
    """The case for ``call``, made by the test ``source`` (raises UnsupportedCall)."""
    replayed = replay(call)
    note = f"{TEST_NOTE_PREFIX} `{source.nodeid}`; {live_and_baked(call, replayed, 'the test')}"
    if isinstance(replayed.target, LiveCall):
        code = live_code(replayed.target)
        why = "" if code else "an object it is built from has no source form"
    else:
        code, why = node_code(call, source, replayed)
    if not code and not _plain_function(replayed.target):
        code = cannot_rebuild(f"the target and inputs of the test `{source.nodeid}`: {why}; run that test to see "
                              "the call") + "\n"
    spec = case(name, replayed.target, replayed.tensors, replayed.baked, package=package, section=section,
                note=note, check=not replayed.random, ref=call.ref, code=code)
    spec.origin = ORIGIN_TEST
    spec.discovery = ref
    return spec


def _plain_function(target: Any) -> bool:
    """A function reached by its ref (its repro is written from the ref and the inputs when the test's lines
    cannot be used); not a module, a bound method or a keyword adapter."""
    return inspect.isfunction(target)


# --------------------------------------------------------------------------
# code: the test's own lines


def _root(node: ast.AST) -> str:
    """``x`` of ``x``, ``x.a.b``, ``x[0].a``; "" for anything else."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _changes(statement: ast.stmt) -> set[str]:
    """The names a statement binds or changes in place: ``x = ...``, ``x[0] = ...``, ``x.requires_grad_()``,
    ``for x in ...``; the root name of each target."""
    changed = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    targets: list[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        targets = [statement.target]
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        targets = [statement.value.func]
    return changed | {_root(t) for t in targets if _root(t)}


def _is_seed(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute)
            and statement.value.func.attr in ("manual_seed", "seed"))


def _builds(body: list[ast.stmt], needed: set[str]) -> list[ast.stmt]:
    """The statements of ``body`` that bind or change ``needed``, and what those read, transitively (and the
    seeds set among them), in order: the lines that build the target and inputs, without the test's checks."""
    kept: list[ast.stmt] = []
    needed = set(needed)
    for statement in reversed(body):
        if _changes(statement) & needed or (_is_seed(statement) and kept):
            kept.append(statement)
            needed |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return list(reversed(kept))


def _function_node(tree: ast.Module, name: str, line: int) -> tuple[ast.FunctionDef, ast.stmt] | None:
    """(the def of the test function holding ``line``, the top-level statement holding that def)."""
    for top in tree.body:
        for node in ast.walk(top):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
                    and node.lineno <= line <= (node.end_lineno or node.lineno)):
                return node, top  # type: ignore[return-value]
    return None


def _read_tree(path: str) -> tuple[str, ast.Module] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        return text, ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None


class _Snippet:
    """The parts of a snippet as they are gathered: module-level statements per file, then lines."""

    def __init__(self) -> None:
        self.top: dict[str, list[ast.stmt]] = {}  # file -> its module-level statements the snippet needs
        self.lines: list[str] = []
        self.defined: set[str] = set()

    def module_names(self, path: str, tree: ast.Module, before: ast.stmt, names: set[str]) -> str:
        """Take the module-level statements of ``path`` that define ``names``; "" or why not."""
        if not names:
            return ""
        statements = top_level_slice(tree, before, names)
        if statements is None:
            return f"it reads {', '.join(sorted(names))}, not all defined at the top of {os.path.basename(path)}"
        known = self.top.setdefault(path, [])
        known += [s for s in statements if s not in known]
        return ""


def _fixture(name: str, function: Any, source: NodeSource, snippet: _Snippet, depth: int = 0) -> str:
    """Inline the fixture ``name`` (its function's source, then ``name = function(...)``); "" or why not."""
    if name in snippet.defined:
        return ""
    if depth > 4:
        return f"fixture {name!r} depends on fixtures too deeply"
    raw = inspect.unwrap(function)
    try:
        path = inspect.getsourcefile(raw) or ""
        text = textwrap.dedent(inspect.getsource(raw))
        node = ast.parse(text).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return f"the source of fixture {name!r} cannot be read"
    if not isinstance(node, ast.FunctionDef):
        return f"fixture {name!r} is not a plain function"
    arguments = [a.arg for a in node.args.args]
    if arguments[:1] == ["self"] or "request" in arguments:
        return f"fixture {name!r} reads {'self' if arguments[:1] == ['self'] else 'request'}"
    for argument in arguments:
        why = _argument(argument, source, snippet, depth + 1)
        if why:
            return why
    node.decorator_list = []
    function_name = f"_fixture_{name}"
    node.name = function_name
    read = set(free_names(ast.unparse(node))) - set(arguments) - {"torch"}
    found = _read_tree(path)
    if found is None:
        return f"the file of fixture {name!r} cannot be read"
    line = raw.__code__.co_firstlineno  # its first decorator's line
    holder = next((s for s in found[1].body if isinstance(s, ast.FunctionDef)
                   and min([s.lineno] + [d.lineno for d in s.decorator_list]) <= line <= (s.end_lineno or s.lineno)),
                  None)
    if holder is None:
        return f"fixture {name!r} is not defined at the top of its file"
    why = snippet.module_names(path, found[1], holder, read)
    if why:
        return f"fixture {name!r}: {why}"
    call = f"{function_name}({', '.join(arguments)})"
    is_generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node))
    snippet.lines.append(ast.unparse(node) + "\n")
    snippet.lines.append(f"{name} = {'next(' + call + ')' if is_generator else call}")
    snippet.defined.add(name)
    return ""


def _argument(name: str, source: NodeSource, snippet: _Snippet, depth: int = 0) -> str:
    """Bind the test's (or a fixture's) argument ``name``: a parametrised value as a literal, or a fixture
    inlined; "" or why not."""
    if name in snippet.defined:
        return ""
    if name in source.indirect:
        return f"its argument {name!r} is a fixture parametrised indirectly (it reads request.param)"
    if name in source.params:
        text = literal_source(source.params[name])
        if text is None:
            # without addresses: the message goes into the snapshot, which a rerun must write the same
            return f"its parameter {name} = {address_free_repr(source.params[name])} has no source form"
        snippet.lines.append(f"{name} = {text}")
        snippet.defined.add(name)
        return ""
    if name in source.fixtures:
        why = _fixture(name, source.fixtures[name], source, snippet, depth)
        if why and name in source.values:  # its function cannot be inlined: the value it gave, when exact
            snippet.lines.append(f"{name} = {source.values[name]}")
            snippet.defined.add(name)
            return ""
        return why
    return f"its argument {name!r} is neither parametrised nor a fixture"


def node_code(call: Call, source: NodeSource, replayed: Replay) -> tuple[str, str]:
    """(statements that define ``target`` and ``inputs`` as the test built them, checked by running them;
    "" and why not)."""
    function = inspect.unwrap(source.function) if source.function is not None else None
    if function is None or call.span is None:
        return "", "the call's place in the test is not known"
    if call.function != function.__qualname__ or os.path.realpath(call.filename) != os.path.realpath(
            inspect.getsourcefile(function) or ""):
        return "", f"the call is made in {call.function}, not in the test's own lines"
    found = _read_tree(call.filename)
    if found is None:
        return "", "the test file cannot be read"
    text, tree = found
    located = _function_node(tree, function.__name__, call.span[0])
    if located is None:
        return "", "the test function is not found in its file"
    node, holder = located
    index = next((i for i, s in enumerate(node.body) if s.lineno <= call.span[0] <= (s.end_lineno or s.lineno)), None)
    if index is None:
        return "", "the call is not in the test's body"
    statement = node.body[index]
    if not isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Assert, ast.Return)):
        return "", f"the call is inside a {type(statement).__name__.lower()} block of the test"
    call_expression = call_node(call, text)
    arguments = argument_sources(call_expression, call, replayed.names) if call_expression is not None else None
    if call_expression is None or arguments is None:
        return "", "the call's arguments cannot be read from its source"
    unwritable = [k for k, v in replayed.baked.items() if literal_source(v) is None]
    fixed = argument_sources(call_expression, call, unwritable) if unwritable else []
    if fixed is None:
        return "", f"the call's arguments {', '.join(unwritable)} cannot be read from its source"
    tail = _target_lines(ast.unparse(call_expression.func), arguments, replayed, dict(zip(unwritable, fixed)))
    try:
        body = [ast.unparse(s) for s in _builds(node.body[:index], set(free_names("\n".join(tail))))]
        free = free_names("\n".join(body + tail))
    except SyntaxError:
        return "", "the test's lines do not parse on their own"
    if "self" in free:
        return "", "the test's lines use self (its class's state)"
    snippet = _Snippet()
    parameters = [a.arg for a in node.args.args]
    module_level = set()
    for name in free:
        if name in parameters:
            why = _argument(name, source, snippet)
            if why:
                return "", why
        elif name != "torch":
            module_level.add(name)
    why = snippet.module_names(call.filename, tree, holder, module_level)
    if why:
        return "", why
    imports = [ast.unparse(s) + ("\n" if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else "")
               for statements in snippet.top.values() for s in statements if ast.unparse(s) != "import torch"]
    everything = imports + snippet.lines + body + tail
    code = "\n".join(seed_lines(free_names("\n".join(everything)), TEST_SEED, "test") + everything) + "\n"
    if not _rebuilds(code, replayed):
        return "", "the test's lines, run on their own, do not rebuild the call's target and inputs"
    return code, ""


def _target_lines(callee: str, arguments: list[str], replayed: Replay, fixed: dict[str, str]) -> list[str]:
    """``target, inputs = ...``; a baked argument with no literal (a lambda) is bound inside ``target`` from the
    call's own source, since the repro can only pass literals."""
    if not fixed:
        return target_lines(callee, arguments, replayed.names, replayed.leading)
    packed = "(" + ", ".join(arguments) + ("," if len(arguments) == 1 else "") + ")"
    params = [f"t{i}" for i in range(len(replayed.names))]
    passed = params if replayed.leading else [f"{n}=t{i}" for i, n in enumerate(replayed.names)]
    return ([f"_kx_callee, inputs = {callee}, {packed}"] + [f"_kx_{k} = {v}" for k, v in fixed.items()]
            + [f"target = lambda {', '.join(params)}, **baked: _kx_callee({', '.join(passed)}, "
               + "".join(f"{k}=_kx_{k}, " for k in fixed) + "**baked)"])


def _rebuilds(code: str, replayed: Replay) -> bool:
    """Whether ``code`` run in a fresh namespace defines ``target`` and ``inputs`` like the recorded call's (the
    same tensor shapes and dtypes; values too, unless the call is random)."""
    namespace = run_fresh("import torch\n" + code)
    if namespace is None or not callable(namespace.get("target")):
        return False
    inputs = list(namespace.get("inputs", ()))
    if len(inputs) != len(replayed.tensors):
        return False
    for got, recorded in zip(inputs, replayed.tensors):
        if not (hasattr(got, "shape") and got.shape == recorded.shape and got.dtype == recorded.dtype):
            return False
    return True

