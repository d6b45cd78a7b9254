"""The migration path for snapshots without cause records: their words, read back into a class.

Probes before cause records (:mod:`.causes`) wrote a failure's cause only as words; the committed example
snapshots and every older snapshot hold nothing else, and cannot always be measured again. This module is the
one place those words are read: :func:`fill` gives each red record without a ``cause`` the one its words
match, when a snapshot is read (:func:`.files.normalise`), so every reader (the page, the worklist, ``diff``)
and the next snapshot written from it (a reused record) look causes up by id like a new record's. A record
with a cause is never read here. Standard library only; the rules are those the fix classes used before, kept
as they were so that an older snapshot's page shows the same classes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .causes import CAUSE, Cause, CauseFromWords, dynamic_red, red
from .fix_classes import (BATCH_SPECIALISED, CONSTANT_MUTATION, GUARD, NO_LOWERING, PYTHON_NUMBER, REDESIGN,
                          RESULT_DIFFERS, RUNTIME_KERNEL, SPARSE_TENSOR, TENSOR_BRANCH, TOOL_BUG, UNCLASSIFIED,
                          UNTRACEABLE_PYTHON, FixClass)
from .vocabulary import COMPILE

# -- the probe's words -> the class, per path. Each rule: a pattern over the cause's text, and the class for
# torch.compile and for torch.export / ONNX (one class when both are the same). First match wins.

@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    compile: FixClass
    capture: FixClass  # torch.export and ONNX


def _rule(pattern: str, compile_class: FixClass, capture_class: FixClass | None = None) -> _Rule:
    return _Rule(re.compile(pattern), compile_class, capture_class or compile_class)


_RULES = (
    # torch bugs first: their words name the tool ("exporter bug: ...", "inductor bug in this torch version")
    _rule(r"^(?:torch\.export bug|exporter bug|inductor (?:C\+\+ codegen )?bug)\b|"
          r"the ONNX exporter of this torch cannot translate|torch\.compile's tracer \(dynamo\) failed inside itself|"
          r"which torch\.compile's tracer in this torch cannot do", TOOL_BUG),
    _rule(r"^\[(?:TypeInferenceError|ShapeInferenceError)\]|ONNX shape inference disagrees with torch|"
          r"does not accept \w+ tensors, yet the exporter emits it", TOOL_BUG),
    # a dynamic batch: the library raises on a symbolic batch (a check of a size) -> tell the tracer it holds
    _rule(r"the library raises when the batch size is symbolic", GUARD),
    _rule(r"the batch size is specialised by|recompiles at batch|accepts only \d+ in dimension|"
          r"needs an operator argument \(such as a convolution's groups\) as a constant|"
          r"the call bakes .* with tensors sized for batch|"
          r"^(?:the exported program|the exported model|the compiled function) fails at batch \d+|"
          r"^at batch \d+ the result differs from eager|^random operator, and at batch \d+", BATCH_SPECIALISED),
    _rule(r"a Python branch \(if / while\) tests tensor values at run time", TENSOR_BRANCH, GUARD),
    _rule(r"a Python integer \(an index, loop count or size\) is computed from tensor values", REDESIGN, GUARD),
    _rule(r"the output shape depends on tensor values", REDESIGN),
    _rule(r"produces a Python value from tensor values \(no graph output\)", TENSOR_BRANCH, GUARD),
    _rule(r"a tensor value is read back into Python \(\.item\(\) / bool\(\)\)|"
          r"a tensor is read back into a Python list \(\.tolist\(\)\)|"
          r"reads tensor values into Python through \.numpy\(\)|builds a tensor from the values of other tensors|"
          r"the operator reads raw tensor memory|dynamo recompiled the same code more times", PYTHON_NUMBER),
    _rule(r"a constant buffer is mutated in place", CONSTANT_MUTATION),
    # before the ONNX lowering words: ONNX has no sparse tensors, so no lowering of a sparse op is the fix
    _rule(r"(?:on|cannot trace) a sparse tensor|builds a sparse tensor with", SPARSE_TENSOR),
    _rule(r"^no ONNX lowering for|the ONNX exporter finds no ONNX overload|"
          r"the exporter cannot resolve the torch overload", NO_LOWERING),
    # "Numpy_type 14 can't be converted to MLDataType": onnxruntime takes no complex64 tensor (kornia's So2)
    _rule(r"^onnxruntime has no kernel for|^ONNX \w+ fails|cannot allocate .* for ONNX|"
          r"Numpy_type \d+ can't be converted to MLDataType", RUNTIME_KERNEL),
    _rule(r"the result differs from eager|even the output count, (?:shapes|rank, dtype) or finiteness differ",
          RESULT_DIFFERS),
    _rule(r"a torch\.Generator argument cannot be captured|creates an object dynamo cannot trace|"
          r"calls copy\.deepcopy|context manager|raises or catches an exception in a way dynamo|"
          r"calls next\(\) on a Python|which is written in C and which dynamo cannot trace|"
          r"it cannot trace back to where it came from|loops over a Python .* object, which dynamo cannot|"
          r"uses a Python generator in a way dynamo|calls the Python builtin|returns .*, not a tensor, which dynamo|"
          r", which dynamo does not trace|marked torch\.compiler\.disable|^dynamo skips \d+ function|"
          r"wraps the traced tensor in the library's Tensor subclass|on .*, which refuses it|"
          r"torch\.export cannot keep a tensor made while it traced|Uninitialized nn\.Module|"
          r"Failed to convert args/kwargs to proxy|constructor with Dynamo", UNTRACEABLE_PYTHON),
)

# Words around the cause that say nothing about its class: a graph-break count, dynamo giving up on the whole
# function, the dynamic-batch pass's prefixes (the page's and the probe's).
_PREFIXES = re.compile(
    r"^(?:\d+ graph breaks?: |dynamo compiled no graph: the whole function runs eagerly \(|"
    r"works only at the traced batch size: |the capture with a dynamic batch fails: |with a dynamic batch: |"
    r"the dynamic-batch pass failed: |onnx\.checker rejects the exported graph: |"
    r"onnxruntime cannot run the exported graph: |the exported program does not run: )")


def _cause_words(text: str) -> str:
    """The cause in a cell's text, without the words around it that say nothing about its class."""
    text = " ".join(text.split())
    while True:
        stripped = _PREFIXES.sub("", text, count=1)
        if stripped == text:
            return text
        text = stripped


def legacy_class(path: str, text: str) -> FixClass:
    """The class an older probe's words of a cause on one path (``vocabulary.PATHS``) belong to;
    :data:`UNCLASSIFIED` when the words do not tell. A branch on tensor values stays :data:`TENSOR_BRANCH`:
    its shape is split where the class is looked up (:func:`.fix_classes.class_of`), as for a new record."""
    found = _cause_words(text)
    for rule in _RULES:
        if rule.pattern.search(found):
            return rule.compile if path == COMPILE else rule.capture
    return UNCLASSIFIED


def fill(data: dict[str, Any]) -> dict[str, Any]:
    """Give each red result (and red dynamic result) of a validated snapshot that has no ``cause`` the one its
    words match, as an older probe's page classified it (a dynamic result by its own words: the prefix the page
    shows them with is one :data:`_PREFIXES` strips). Changes ``data`` in place and returns it."""
    for case in data.get("cases", ()):
        for paths in case.get("results", {}).values():
            for path, record in paths.items():
                if CAUSE not in record and red(path, record):
                    record[CAUSE] = CauseFromWords(Cause(legacy_class(path, record.get("detail", ""))).record())
                dynamic = record.get("dynamic")
                if dynamic_red(dynamic) and CAUSE not in dynamic:
                    dynamic[CAUSE] = CauseFromWords(Cause(legacy_class(path, dynamic.get("detail", ""))).record())
    return data
