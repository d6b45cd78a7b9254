"""Turn one call recorded in a docstring example into a probe case, with the example's own lines as its repro.

``code`` rebuilds the target and inputs from the example's own lines, so a
repro runs as pasted.
"""

from __future__ import annotations

import ast
import doctest
import inspect
from typing import Any

from ....snapshot.vocabulary import ORIGIN_DOCSTRING
from ...cases.registry import CaseSpec, case
from ..recording.call_replay import live_and_baked, replay
from ..recording.provenance import LiveCall
from .docstring_run import EXAMPLE_SEED
from ..recording.recording import Call
from ..recording.repro_source import argument_sources, call_node, free_names, live_code, seed_lines, target_lines

DOC_NOTE_PREFIX = "from the docstring example of"


def build_case(call: Call, *, name: str, package: str, section: str, source_ref: str, test: Any) -> CaseSpec:
    """The case for ``call``, recorded in the example of ``source_ref`` (raises UnsupportedCall)."""
    replayed = replay(call)
    note = f"{DOC_NOTE_PREFIX} `{source_ref}`; {live_and_baked(call, replayed, 'the example')}"
    code = live_code(replayed.target) if isinstance(replayed.target, LiveCall) else \
        example_code(call, test, replayed.names, replayed.leading)
    spec = case(name, replayed.target, replayed.tensors, replayed.baked, package=package, section=section, note=note,
                check=not replayed.random, ref=call.ref, code=code)
    spec.origin = ORIGIN_DOCSTRING
    return spec


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
    return "\n".join(imports + seed_lines(free, EXAMPLE_SEED, "example") + body + tail) + "\n"
