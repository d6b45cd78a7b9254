"""The fix beside the failure: each failure cause belongs to a class, and each class has its fix.

A class is a record (``FixClass``: it *is* its id, like the vocabulary's words) with its title, the fix in
words, a short code shape (before / after) and the names in torch's documentation it links to (resolved
through intersphinx on the reference page). This is the one table of classes: the probe names a result's
cause by a class id (:mod:`.causes`), and :func:`class_of` looks it up; nothing here reads words. The probe
names the class per path: the same cause can need another fix on another path (a branch on tensor values is
``torch.where`` under torch.compile, a ``torch._check`` or ``torch.cond`` under torch.export). A branch on
tensor values under torch.compile is one of five shapes with five fixes; the statement at the failure's
library line tells them apart (the result's ``where_code``, read by the probe's worker): :func:`branch_shape`.
Where nothing tells the class, the answer is :data:`UNCLASSIFIED`, whose fix says what to read; nothing is
guessed. Snapshots of older probes, whose records have no cause, get theirs from :mod:`.legacy_causes`.

Standard library only: the page classifies without torch and without the library's source.
"""

from __future__ import annotations

import ast
import re

from .causes import Cause
from .vocabulary import Word


class FixClass(Word):
    """A failure class. ``fix``: what to change, in words; ``before`` / ``after``: the code shape;
    ``docs``: (role, target) pairs in torch's documentation (``py:func``, ``py:class``, ``py:meth``,
    ``std:doc``), resolved through intersphinx; ``workflow``: the group it belongs to."""

    title: str  # type: ignore[assignment]  # a field, where str has a method of that name
    workflow: str
    fix: str
    before: str
    after: str
    docs: tuple[tuple[str, str], ...]


GRAPH_BREAKS = "torch.compile graph breaks (fullgraph=True)"
EXPORT_AND_ONNX = "torch.export and ONNX"
ANY_PATH = "any path"
WORKFLOWS = (GRAPH_BREAKS, EXPORT_AND_ONNX, ANY_PATH)


def _record(name: str, **facts: object) -> FixClass:
    return FixClass(name, **facts)


# -- torch.compile graph breaks: the compile-first workflow's six classes and the redesign group

VALUE_CHECK = _record(
    "value-check", title="a value check", workflow=GRAPH_BREAKS,
    fix="check on the device instead of in Python: torch._assert_async raises without reading the value back",
    before="if (t < 0).any():\n    raise ValueError(\"negative\")",
    after="torch._assert_async((t >= 0).all(), \"negative\")",
    docs=(("py:func", "torch._assert_async"),))
TENSOR_BRANCH = _record(
    "tensor-branch", title="a branch on tensor values", workflow=GRAPH_BREAKS,
    fix="compute both sides and pick per element with torch.where. Where the cell shows no statement (a "
        "snapshot of an older probe), read the library line to choose among this class and the four beside "
        "it (a value check, an early exit of a bounded loop, an early return of another type, a gate on a "
        "{0, 1} tensor)",
    before="if (x > 0).all():\n    y = f(x)\nelse:\n    y = g(x)",
    after="y = torch.where(x > 0, f(x), g(x))",
    docs=(("py:func", "torch.where"),))
EARLY_EXIT = _record(
    "early-exit", title="an early exit of a bounded loop", workflow=GRAPH_BREAKS,
    fix="remove the early exit once it is shown to be a no-op (the remaining iterations change nothing)",
    before="for _ in range(n):\n    if not mask.any():\n        break\n    x = step(x, mask)",
    after="for _ in range(n):\n    x = step(x, mask)  # a no-op where mask is all False",
    docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))
EARLY_RETURN = _record(
    "early-return", title="an early return of another type", workflow=GRAPH_BREAKS,
    fix="always return the value (the same type on every path); let the caller test it",
    before="if mask.all():\n    return None\nreturn x[mask]",
    after="return torch.where(mask, x, x.new_zeros(()))",
    docs=(("py:func", "torch.where"),))
GATE = _record(
    "gate", title="a gate on a {0, 1} tensor", workflow=GRAPH_BREAKS,
    fix="multiply by the gate instead of branching on it",
    before="if batch_prob.sum() < 1:\n    return x\nreturn f(x)",
    after="gate = batch_prob.view(-1, 1, 1, 1)\nreturn gate * f(x) + (1 - gate) * x",
    docs=(("py:func", "torch.where"),))
PYTHON_SCALAR_BRANCH = _record(
    "python-scalar-branch", title="a branch on a Python scalar", workflow=GRAPH_BREAKS,
    fix="nothing to do: a branch on a Python number or flag is resolved when dynamo traces, and breaks nothing",
    before="if self.p == 1.0:\n    return f(x)",
    after="if self.p == 1.0:  # fine: traced once per value\n    return f(x)",
    docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))
REDESIGN = _record(
    "redesign", title="a redesign", workflow=GRAPH_BREAKS,
    fix="no one-line fix: an unbounded while, shapes read from .item(), a random permutation that dispatches "
        "between code paths, or the data-dependent shapes of nonzero / unique / boolean indexing need fixed "
        "shapes (masks instead of selections, a bounded loop, a fixed upper size)",
    before="idx = torch.nonzero(mask)\nout = x[idx]",
    after="out = torch.where(mask[..., None], x, 0)  # fixed shape; the mask carries the selection",
    docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))

# -- torch.export and ONNX

GUARD = _record(
    "data-dependent-guard", title="a data-dependent guard", workflow=EXPORT_AND_ONNX,
    fix="tell the tracer what holds: torch._check on the value (or size) the guard tests, torch.cond for a "
        "real branch with both sides traced, or a Dim hint for a size",
    before="n = int(counts.max())\nif n > 0:\n    out = x[:n]",
    after="n = counts.max().item()\ntorch._check(n > 0)\nout = x[:n]",
    docs=(("py:func", "torch._check"), ("py:func", "torch.cond"), ("py:class", "torch.export.Dim")))
NO_LOWERING = _record(
    "onnx-lowering", title="no ONNX lowering for an operator", workflow=EXPORT_AND_ONNX,
    fix="decompose the operator into ones ONNX has, or register a custom translation for the exporter",
    before="torch.onnx.export(model, args, dynamo=True)  # no ONNX function for torch.linalg.svd",
    after="torch.onnx.export(model, args, dynamo=True,\n                  custom_translation_table={"
          "torch.ops.aten.op.default: onnx_op})",
    docs=(("py:func", "torch.onnx.export"),))
CONSTANT_MUTATION = _record(
    "constant-mutation", title="a constant mutated in place", workflow=EXPORT_AND_ONNX,
    fix="work on a copy: clone the buffer or constant before changing it in the forward",
    before="self.kernel[0] = scale",
    after="kernel = self.kernel.clone()\nkernel[0] = scale",
    docs=(("py:meth", "torch.Tensor.clone"),))
PYTHON_NUMBER = _record(
    "python-number", title="a Python number read from a tensor", workflow=EXPORT_AND_ONNX,
    fix="keep it a tensor: compute with the 0-d tensor (torch.stack instead of torch.tensor of values, no "
        ".item() / .tolist() / .numpy())",
    before="scale = float(s.item())\ny = x * scale",
    after="y = x * s  # s stays a tensor",
    docs=(("py:func", "torch.stack"),))

# -- any path

BATCH_SPECIALISED = _record(
    "batch-specialised", title="a batch size made a constant", workflow=ANY_PATH,
    fix="derive sizes from the tensor (x.shape[0], -1) instead of Python numbers and loops over the batch, and "
        "capture with the batch dynamic (a Dim hint for torch.export and ONNX, mark_dynamic for torch.compile)",
    before="out = x.view(2, -1)\nfor i in range(x.shape[0]): ...",
    after="out = x.view(x.shape[0], -1)  # vectorised over the batch",
    docs=(("py:class", "torch.export.Dim"),))
UNTRACEABLE_PYTHON = _record(
    "untraceable-python", title="Python the tracer cannot follow", workflow=ANY_PATH,
    fix="keep the construct out of the traced forward (build objects, generators, copies, random generators "
        "and skipped helpers once, outside), or replace it by torch operations",
    before="for m in (c for c in self.children()):\n    x = m(x)",
    after="for m in self.layers:  # an nn.ModuleList built once\n    x = m(x)",
    docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))
TOOL_BUG = _record(
    "torch-bug", title="a bug of torch in this version", workflow=ANY_PATH,
    fix="nothing to change in the library: the eager result is right and torch's tracer, exporter or inductor "
        "fails; report it to torch with the repro, or work around it until a torch version fixes it",
    before="torch.compile(fn, fullgraph=True)(x)  # fails inside torch",
    after="# a torch issue with the repro; pin or skip this torch version",
    docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))
RUNTIME_KERNEL = _record(
    "runtime-kernel", title="no onnxruntime kernel for the types", workflow=EXPORT_AND_ONNX,
    fix="run the operator in a type the runtime has kernels for (float32), casting around it",
    before="y = conv(x.double())",
    after="y = conv(x.float()).to(x.dtype)",
    docs=(("py:meth", "torch.Tensor.to"),))
SPARSE_TENSOR = _record(
    "sparse-tensor", title="a sparse tensor the path cannot take", workflow=ANY_PATH,
    fix="keep sparse tensors at the edge of the captured function: pass a sparse matrix as its indices and values "
        "(dense tensors; clone the ones a sparse tensor hands out, which are views into it) or as its dense "
        "values, and compute with dense operations inside (index_add or scatter_add for a sparse-dense "
        "product); build the sparse tensor outside, where a caller needs one",
    before="def forward(adj, x):  # adj: a sparse COO adjacency\n    return torch.sparse.mm(adj, x)",
    after="def forward(edge_index, weight, x):  # adj.indices().clone(), adj.values().clone()\n"
          "    messages = weight.unsqueeze(1) * x[edge_index[1]]\n"
          "    return torch.zeros_like(x).index_add(0, edge_index[0], messages)",
    docs=(("py:meth", "torch.Tensor.index_add"), ("std:doc", "sparse")))
RESULT_DIFFERS = _record(
    "result-differs", title="a result that differs from eager", workflow=ANY_PATH,
    fix="compare the captured graph with eager step by step (the first output that differs); the cause is in "
        "the numerics or the exporter, not in a one-line shape of the code",
    before="torch.testing.assert_close(exported(x), fn(x))  # fails",
    after="# bisect: compare intermediate outputs of both",
    docs=(("py:func", "torch.testing.assert_close"),))
UNCLASSIFIED = _record(
    "unclassified", title="unclassified", workflow=ANY_PATH,
    fix="the words do not say which class it is: read the library line the cell names and the repro's full "
        "error, then pick the class on the reference page",
    before="", after="", docs=(("std:doc", "compile/programming_model.common_graph_breaks"),))

FIX_CLASSES = (VALUE_CHECK, TENSOR_BRANCH, EARLY_EXIT, EARLY_RETURN, GATE, PYTHON_SCALAR_BRANCH, REDESIGN,
               GUARD, NO_LOWERING, CONSTANT_MUTATION, PYTHON_NUMBER, RUNTIME_KERNEL,
               BATCH_SPECIALISED, UNTRACEABLE_PYTHON, SPARSE_TENSOR, TOOL_BUG, RESULT_DIFFERS, UNCLASSIFIED)
FIX_CLASS: dict[str, FixClass] = {c: c for c in FIX_CLASSES}


# -- a cause record -> its class

def class_of(cause: Cause | None, statement: str = "") -> FixClass:
    """The class of a result's cause record (:mod:`.causes`), looked up by its id; :data:`UNCLASSIFIED` for a
    record without one. ``statement``: the library statement the cause names (``where_code``), which splits a
    branch on tensor values under torch.compile into its shapes."""
    chosen = FIX_CLASS.get(cause.id, UNCLASSIFIED) if cause is not None else UNCLASSIFIED
    if chosen is TENSOR_BRANCH and statement:
        return branch_shape(statement) or chosen
    return chosen


# -- a branch statement's shape -> its class

_BODY_START = re.compile(r"^\s+(raise|break|continue|return)\b", re.M)


def _parsed_statement(statement: str) -> ast.stmt | None:
    """The statement as a syntax tree: as written, then as ``if`` where it is an ``elif``, then its header
    alone (a body cut at the length the probe keeps)."""
    text = re.sub(r"^elif\b", "if", statement.strip())
    header = text.split(":\n", 1)[0] + ":\n    pass" if ":\n" in text else text
    for candidate in (text, header):
        try:
            body = ast.parse(candidate).body
        except SyntaxError:
            continue
        if body:
            return body[0]
    return None


def _reduces_to_gate(test: ast.expr) -> bool:
    """``x.sum() < 1``, ``0 == gate.sum()``: a {0, 1} tensor's sum compared with 0 or 1."""
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = (test.left, test.comparators[0])
    summed = any(isinstance(s, ast.Call) and isinstance(s.func, ast.Attribute) and s.func.attr == "sum"
                 for s in sides)
    return summed and any(isinstance(s, ast.Constant) and s.value in (0, 1) for s in sides)


def branch_shape(statement: str) -> FixClass | None:
    """The class a branch on tensor values is by its statement's shape: ``if …: raise`` or ``assert`` is a
    value check, ``if …: break`` an early exit, ``if x.sum() < 1:`` a gate, ``if …: return`` an early
    return, a ``while`` on tensor values a redesign; None for another shape (a branch: torch.where)."""
    node = _parsed_statement(statement)
    if isinstance(node, ast.Assert):
        return VALUE_CHECK
    if isinstance(node, ast.While):
        return REDESIGN
    if not isinstance(node, ast.If):
        return None
    if _reduces_to_gate(node.test):
        return GATE
    first = node.body[0]
    if isinstance(first, ast.Pass):  # the body was cut: its first word says
        found = _BODY_START.search(statement)
        first_word = found.group(1) if found else ""
    else:
        first_word = {ast.Raise: "raise", ast.Break: "break", ast.Continue: "continue",
                      ast.Return: "return"}.get(type(first), "")
    return {"raise": VALUE_CHECK, "break": EARLY_EXIT, "continue": EARLY_EXIT,
            "return": EARLY_RETURN}.get(first_word)


def fix_class(name: str) -> FixClass:
    try:
        return FIX_CLASS[name]
    except KeyError:
        raise ValueError(f"unknown fix class {name!r}; expected one of {', '.join(FIX_CLASSES)}") from None


