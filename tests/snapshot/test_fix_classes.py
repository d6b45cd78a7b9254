"""The fix classes (snapshot/fix_classes.py): every cause the probe can word names its class per path (a cause
record), and the legacy reader (snapshot/legacy_causes.py) gives an older probe's words the same class; the
committed kornia snapshots' red cells each get one, and the few the words cannot tell are counted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sphinx_kexport.probe.measure import explain, graph_breaks
from sphinx_kexport.snapshot import load_snapshot
from sphinx_kexport.snapshot.fix_classes import (
    BATCH_SPECIALISED, CONSTANT_MUTATION, FIX_CLASSES, GUARD, NO_LOWERING, PYTHON_NUMBER, REDESIGN, RESULT_DIFFERS,
    RUNTIME_KERNEL, SPARSE_TENSOR, TENSOR_BRANCH, TOOL_BUG, UNCLASSIFIED, UNTRACEABLE_PYTHON, class_of,
    fix_class)
from sphinx_kexport.snapshot.causes import Cause
from sphinx_kexport.snapshot.legacy_causes import _cause_words as cause, legacy_class
from sphinx_kexport.snapshot.vocabulary import COMPILE, EXPORT, ONNX
from sphinx_kexport.snapshot.worklist import blocked_cells

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "example_docs" / "_data"
KORNIA = [DATA / "export_support.json", DATA / "versions" / "kornia-torch-2.9.1.json",
          DATA / "versions" / "kornia-torch-2.15.0.json"]


class _AnyMatch:
    """A match whose every group reads "12": enough for each of explain's wording builders to word its cause."""

    def group(self, index: int = 0) -> str:
        return "12"


def _probe_phrases() -> list[str]:
    """Each rule's words; an operator's name reads "T" (torch.12, or aten.12 when torch is imported)."""
    return [re.sub(r"\b(?:torch|aten)\.12\b", "T", reason if isinstance(reason, str) else reason(_AnyMatch()))
            for _, reason, _ in explain._RULES]


def _probe_causes() -> list:
    """Each rule's cause (snapshot.causes.CauseKind)."""
    return [cause if not callable(cause) else cause(_AnyMatch()) for _, _, cause in explain._RULES]


def classify(path: str, text: str, statement: str = ""):
    """An older probe's words on a path, read by the legacy reader and looked up as a new record is."""
    return class_of(Cause(legacy_class(path, text)), statement)


# explain._RULES in order: (start of the probe's words, class under torch.compile, class under torch.export
# and ONNX). A new rule in the probe fails test_every_probe_rule_is_listed until it is listed here.
EXPECTED = [
    ("no ONNX lowering for T of a complex-valued", NO_LOWERING, NO_LOWERING),
    ("the ONNX exporter cannot translate T on a sparse tensor", SPARSE_TENSOR, SPARSE_TENSOR),
    ("the ONNX exporter cannot decompose an operation on a sparse tensor", SPARSE_TENSOR, SPARSE_TENSOR),
    ("no ONNX lowering for T", NO_LOWERING, NO_LOWERING),
    ("no ONNX lowering for T 12", NO_LOWERING, NO_LOWERING),
    ("onnxruntime has no kernel", RUNTIME_KERNEL, RUNTIME_KERNEL),
    ("a Python integer (an index, loop count or size)", REDESIGN, GUARD),  # shapes from .item() / a _check
    ("the output shape depends on tensor values (T)", REDESIGN, REDESIGN),
    ("the output shape depends on tensor values (nonzero", REDESIGN, REDESIGN),
    ("a tensor is read back into a Python list", PYTHON_NUMBER, PYTHON_NUMBER),
    ("a Python branch (if / while) tests tensor values", TENSOR_BRANCH, GUARD),
    ("builds a tensor from the values of other tensors", PYTHON_NUMBER, PYTHON_NUMBER),
    ("a tensor value is read back into Python (.item() / bool())", PYTHON_NUMBER, PYTHON_NUMBER),
    ("wraps the traced tensor in the library's Tensor subclass", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("T produces a Python value from tensor values", TENSOR_BRANCH, GUARD),
    ("T produces a Python value from tensor values", TENSOR_BRANCH, GUARD),
    ("a torch.Generator argument cannot be captured", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("a constant buffer is mutated in place", CONSTANT_MUTATION, CONSTANT_MUTATION),
    ("the ONNX exporter needs an operator argument", BATCH_SPECIALISED, BATCH_SPECIALISED),
    ("torch.export bug:", TOOL_BUG, TOOL_BUG),
    ("torch.export cannot keep a tensor made while it traced", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("the ONNX exporter of this torch cannot translate", TOOL_BUG, TOOL_BUG),
    ("exporter bug: its type-promotion pass", TOOL_BUG, TOOL_BUG),
    ("exporter bug: onnxscript emits an unsorted graph", TOOL_BUG, TOOL_BUG),
    ("no ONNX lowering for the dim=None reduction", NO_LOWERING, NO_LOWERING),
    ("the ONNX exporter finds no ONNX overload", NO_LOWERING, NO_LOWERING),
    ("the exporter cannot resolve the torch overload", NO_LOWERING, NO_LOWERING),
    ("reads tensor values into Python through .numpy()", PYTHON_NUMBER, PYTHON_NUMBER),
    ("the operator reads raw tensor memory", PYTHON_NUMBER, PYTHON_NUMBER),
    ("inductor C++ codegen bug", TOOL_BUG, TOOL_BUG),
    ("inductor bug in this torch version (KeyError", TOOL_BUG, TOOL_BUG),
    ("inductor bug in this torch version (lowering", TOOL_BUG, TOOL_BUG),
    ("calls a function marked torch.compiler.disable", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("dynamo (torch.compile) cannot trace a sparse tensor", SPARSE_TENSOR, SPARSE_TENSOR),
    ("builds a sparse tensor with T, which dynamo", SPARSE_TENSOR, SPARSE_TENSOR),
    ("calls 12, which dynamo does not trace", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("T returns a Python 12, not a tensor", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("calls the Python builtin 12()", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("creates an object dynamo cannot trace", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("calls copy.deepcopy", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("enters a 12 context manager", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("a graph break inside a context manager", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("raises or catches an exception", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("calls next() on a Python 12", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("uses 12.12, which is written in C", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("meets a 12 object it cannot trace back", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("loops over a Python 12 object", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("dynamo recompiled the same code more times", PYTHON_NUMBER, PYTHON_NUMBER),
    ("uses a Python generator in a way dynamo cannot trace", UNTRACEABLE_PYTHON, UNTRACEABLE_PYTHON),
    ("ran out of memory", UNCLASSIFIED, UNCLASSIFIED),  # the words name no code to change
    ("ONNX shape inference disagrees with torch", TOOL_BUG, TOOL_BUG),
    ("ONNX 12 does not accept 12 tensors, yet the exporter emits it", TOOL_BUG, TOOL_BUG),
    ("the exported model accepts only 12 in dimension", BATCH_SPECIALISED, BATCH_SPECIALISED),
    ("cannot allocate 12 bytes for ONNX", RUNTIME_KERNEL, RUNTIME_KERNEL),
    ("ONNX 12 fails: 12", RUNTIME_KERNEL, RUNTIME_KERNEL),
    ("indexes a tensor at a position read from tensor values", TOOL_BUG, TOOL_BUG),
    # dynamo's 'SKIPPED INLINING' gives no reason, and a failure on fake tensors names no cause: the words
    # cannot tell, so they say what to read
    ("dynamo gives up tracing into 12()", UNCLASSIFIED, UNCLASSIFIED),
    ("torch.compile's tracer (dynamo) failed inside itself", TOOL_BUG, TOOL_BUG),
    ("torch.compile's tracer fails to run T", UNCLASSIFIED, UNCLASSIFIED),
]


def test_every_probe_rule_is_listed():
    phrases = _probe_phrases()
    assert len(phrases) == len(EXPECTED), "explain._RULES changed: list each rule's words and class in EXPECTED"
    for phrase, (start, _, _) in zip(phrases, EXPECTED):
        assert phrase.startswith(start), (phrase, start)


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_each_probe_phrase_gets_the_class_its_words_say(index):
    phrase = _probe_phrases()[index]
    _, on_compile, on_capture = EXPECTED[index]
    # the probe names the class beside the words (its cause record) ...
    named = _probe_causes()[index]
    assert (named.on(COMPILE).id, named.on(EXPORT).id, named.on(ONNX).id) == (on_compile, on_capture, on_capture)
    # ... and an older probe's same words read back into the same class
    assert classify(COMPILE, phrase) == on_compile
    assert classify(EXPORT, phrase) == on_capture
    assert classify(ONNX, phrase) == on_capture


def test_the_words_around_a_cause_do_not_change_its_class():
    """The probe puts a cause inside other words: a graph-break count, the dynamic-batch pass, a step."""
    branch = "a Python branch (if / while) tests tensor values at run time"
    for text in (f"3 graph breaks: {branch}", f"1 graph break: {branch}; torch.compile(fn, fullgraph=True) "
                 "compiles it as one graph", f"dynamo compiled no graph: the whole function runs eagerly ({branch})"):
        assert classify(COMPILE, text) == TENSOR_BRANCH
    assert cause(f"the capture with a dynamic batch fails: with a dynamic batch: {branch}") == branch
    assert classify(EXPORT, f"with a dynamic batch: {branch}") == GUARD
    assert classify(ONNX, "onnxruntime cannot run the exported graph: ONNX Expand fails: bad shape") == RUNTIME_KERNEL


def test_the_probes_other_wordings():
    """The measure/ modules' own sentences (graph_breaks, dynamic_batch, measurement, recompile)."""
    assert classify(COMPILE, graph_breaks.skipped_summary(["helper (torch.compiler.disable)"], 1)) == \
        UNTRACEABLE_PYTHON
    for line in ("for i in range(x.shape[0]):", "if x.shape[0] > 1:", "n = int(x.shape[0])", "x.view(2, -1)",
                 "torch.zeros(4)", ""):
        text = f"works only at batch 2: {explain.batch_specialisation(line, [])}"
        assert classify(COMPILE, text) == BATCH_SPECIALISED, text
        assert classify(EXPORT, f"works only at the traced batch size: {text}") == BATCH_SPECIALISED
    assert classify(EXPORT, "works only at a fixed batch: the library raises when the batch size is symbolic "
                            "(AssertionError: `batch_size` shall be a positive integer. Got s38.)") == GUARD
    assert classify(COMPILE, "recompiles at batch 3: the guard on `x.shape[0]` failed (compiled for 2)") == \
        BATCH_SPECIALISED
    assert classify(ONNX, "at batch 3 the result differs from eager (max abs diff 1)") == BATCH_SPECIALISED
    assert classify(ONNX, "random operator, and at batch 3 even the output count, shapes or finiteness differ "
                          "from eager (shape (3,), eager (2,))") == BATCH_SPECIALISED
    assert classify(EXPORT, "the exported program fails at batch 5: AssertionError: Guard failed") == \
        BATCH_SPECIALISED
    assert classify(ONNX, "runs, but the result differs from eager: out0: max abs diff 6.28") == RESULT_DIFFERS
    assert classify(ONNX, "random operator, and even the output count, shapes or finiteness differ from eager: "
                          "x") == RESULT_DIFFERS  # as probes before issue 60 worded it
    assert classify(ONNX, "random operator, and even the output count, rank, dtype or finiteness differ from "
                          "eager: out0: 1 dimensions, eager 2") == RESULT_DIFFERS
    assert classify(ONNX, "onnx.checker rejects the exported graph: [TypeInferenceError] Inferred elem type "
                          "differs from existing elem type: (14) vs (1)") == TOOL_BUG


def test_unknown_words_are_unclassified_never_guessed():
    assert classify(COMPILE, "Unsupported: something dynamo says") == UNCLASSIFIED
    assert classify(EXPORT, "") == UNCLASSIFIED
    assert "read the library line" in UNCLASSIFIED.fix


def test_records_are_complete_and_spelled_once():
    assert len(set(FIX_CLASSES)) == len(FIX_CLASSES)
    for record in FIX_CLASSES:
        assert record.title and record.fix and record.docs and record.workflow
        assert (record.before == "") == (record.after == "") == (record is UNCLASSIFIED)
        assert fix_class(str(record)) is record
    with pytest.raises(ValueError, match="unknown fix class 'nope'"):
        fix_class("nope")


def _classes(path: Path):
    from collections import Counter

    counts, unclassified = Counter(), []
    for cell in blocked_cells(load_snapshot(path)):
        counts[cell.fix_class] += 1
        if cell.fix_class == UNCLASSIFIED:
            unclassified.append((cell.case.name, cell.path, cell.text))
    return counts, unclassified


@pytest.mark.parametrize("path", KORNIA, ids=lambda p: p.name)
def test_every_red_cell_of_the_kornia_snapshots_gets_a_class(path):
    counts, unclassified = _classes(path)
    assert sum(counts.values()) > 500
    # the ones the words cannot tell: dynamo's reasonless 'SKIPPED INLINING', a failure on fake tensors,
    # Python errors the probe passes on as raised (OverflowError, ImportError of inductor's cache, a complex)
    assert len(unclassified) <= 0.03 * sum(counts.values()), unclassified
    for _, _, text in unclassified:
        assert any(sign in text for sign in ("dynamo gives up tracing", "fails to run torch.rand",
                                             "OverflowError", "ImportError", "TypeError")), text


def test_kornia_2_13_counts():
    counts, unclassified = _classes(DATA / "export_support.json")
    assert counts[GUARD] > counts[NO_LOWERING] > 50
    assert len(unclassified) == 3


# -- a branch on tensor values, split by the statement at its library line (where_code)

from sphinx_kexport.snapshot.fix_classes import (  # noqa: E402
    EARLY_EXIT, EARLY_RETURN, GATE, VALUE_CHECK, branch_shape)

BRANCH_WORDS = "1 graph break: a Python branch (if / while) tests tensor values at run time"


@pytest.mark.parametrize("statement, expected", [
    ("if (t < 0).any():\n    raise ValueError(\"negative\")", VALUE_CHECK),
    ("assert (t >= 0).all(), \"negative\"", VALUE_CHECK),
    ("if not mask.any():\n    break", EARLY_EXIT),
    ("elif done.all():\n    continue", EARLY_EXIT),
    ("if mask.all():\n    return None", EARLY_RETURN),
    ("if batch_prob.sum() < 1:\n    return x", GATE),
    ("if 0 == gate.sum():\n    y = x", GATE),
    ("while err > tol:\n    x = step(x)", REDESIGN),
    # a header over lines and a body the probe cut: the body's first word still tells
    ("if (\n    t.isnan().any()\n):\n    raise ValueError(\n        \"a long message\"\n...", VALUE_CHECK),
    ("if x.mean() > 0.5:\n    y = x * 2", None),  # a branch: torch.where
    ("y = x.item()", None),
    ("not python (((", None),
])
def test_the_statement_tells_the_shape_of_a_branch(statement, expected):
    assert branch_shape(statement) is expected


def test_the_statement_refines_only_the_compile_branch_class():
    statement = "if not mask.any():\n    break"
    assert classify(COMPILE, BRANCH_WORDS, statement) is EARLY_EXIT
    assert classify(COMPILE, BRANCH_WORDS, "if x.mean() > 0.5:\n    y = x * 2") is TENSOR_BRANCH
    assert classify(COMPILE, BRANCH_WORDS) is TENSOR_BRANCH  # an older snapshot: no statement
    # torch.export and ONNX keep the guard's fix (torch._check, torch.cond), whatever the shape
    assert classify(EXPORT, BRANCH_WORDS, statement) is GUARD
    # other words are not re-read through a statement
    assert classify(COMPILE, "no ONNX lowering for torch.linalg.svd", statement) is NO_LOWERING
