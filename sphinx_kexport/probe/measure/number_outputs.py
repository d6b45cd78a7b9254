"""A call that returns Python numbers and no tensor (a node count, a shape, ``int(x.sum())``): the numbers are
its outputs, compared number with number on every path that captures them.

A call that returns a tensor is read as before (output_leaves: its tensors; a number beside them is no
output). Apart from output_leaves because discovery's randomness check reads outputs through that module and
its cache key hashes it: discovery still leaves out a call that returns no tensor.

Measured on torch 2.13 (CPU) with a module whose forward returns the number: ``torch.export`` captures a
number read from a shape (``x.shape[0]``, ``x.numel()``, ``tuple(x.shape)``) as an output, and fails on one
read from the data (``int(x.sum())``: GuardOnDataDependentSymNode); the ONNX exporter writes a number read
from the data as a 0-d output and fails to translate a shape's constant ("'int' object has no attribute
'name'"); torch.compile returns either (a read from the data breaks the ordinary compile's graph, not
``fullgraph=True``'s). Where a path cannot capture the number, the call's code is not at fault: the path's
record says it was not probed (:func:`not_probed`).
"""

from __future__ import annotations

from typing import Any

import torch

from ...snapshot.vocabulary import FAIL, NOT_APPLICABLE, STAGE_CAPTURE, STAGE_NO_TENSOR, STAGE_TRANSLATE
from .output_leaves import flatten_outputs

# a Python number eagerly, a symbolic one inside a capture; a string is no number
_NUMBERS = (bool, int, float, torch.SymBool, torch.SymInt, torch.SymFloat)

NO_OUTPUT = "not probed: returns no tensor (a Python object, not a number), nothing to capture"


def outputs_or_numbers(obj: Any) -> tuple[Any, ...]:
    """Every tensor in ``obj`` (output_leaves); where it holds none, every number in it, in order.

    It runs inside the captured forward (the probe's wrapper), so it sticks to plain loops."""
    found = flatten_outputs(obj)
    if found:
        return found
    numbers: list[Any] = []
    _collect_numbers(obj, numbers)
    return tuple(numbers)


def _collect_numbers(obj: Any, found: list[Any]) -> None:
    if isinstance(obj, _NUMBERS):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):  # torch.Size too
        for item in obj:
            _collect_numbers(item, found)
    elif isinstance(obj, dict):
        for key in obj:
            _collect_numbers(obj[key], found)


def detached(outputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Eager's outputs as the reference: tensors detached, numbers as they are."""
    return tuple(v.detach() if isinstance(v, torch.Tensor) else v for v in outputs)


def numbers_only(reference: tuple[Any, ...]) -> bool:
    """Whether eager returned numbers and no tensor."""
    return bool(reference) and not any(isinstance(v, torch.Tensor) for v in reference)


def not_probed(path_label: str, record: dict[str, Any]) -> dict[str, Any]:
    """A path that could not capture or translate a call returning only numbers: n/a, not probed (its reason
    kept), rather than a failure of the call's code. Any other record as it is."""
    if record.get("status") != FAIL or record.get("stage") not in (STAGE_CAPTURE, STAGE_TRANSLATE):
        return record
    detail = (f"not probed: returns no tensor but a Python number, which {path_label} does not capture here "
              f"({record.get('detail', '')})")
    return dict(record, status=NOT_APPLICABLE, detail=detail, stage=STAGE_NO_TENSOR)  # where it stopped kept
