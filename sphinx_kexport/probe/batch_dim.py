"""Which dimension of a case's inputs is its batch, and what a dynamic-batch result can say.

``case(..., batch=...)`` accepts:

* nothing (the default): dimension 0 of every tensor input of rank 2 or
  more, when those inputs agree on its size; otherwise the case has no batch
  dimension (its results then say why);
* ``None``: no batch dimension (the dynamic-batch pass is skipped);
* an ``int`` ``d``: dimension ``d`` of every tensor input of rank
  ``max(2, d + 1)`` or more (they must agree on its size);
* a tuple or list with one entry per input: the batch dimension of that input,
  or ``None`` for an input without one (they must agree on its size).

Resolution gives one entry per input (``int`` or ``None``); no torch import
is needed, only the inputs' ``shape``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AUTO = "auto"  # the default of ``case(batch=...)``

# what the dynamic-batch result of a path can say (the snapshot schema documents each)
DYNAMIC_STATUSES = ("ok", "static", "fail", "n/a")
# the worker's step name while a path's dynamic-batch pass runs: "onnx:dynamic"
DYNAMIC_STEP = ":dynamic"


@dataclass(frozen=True)
class Batch:
    """The resolved batch of a case: one dimension per input (or None), and its size.

    ``dims`` is None when the case has no batch dimension; ``why`` then says so in words.
    """

    dims: tuple[int | None, ...] | None
    size: int = 0
    why: str = ""


def _rank(value: Any) -> int:
    shape = getattr(value, "shape", None)
    return len(shape) if shape is not None else -1


def _sizes(inputs: list[Any], dims: tuple[int | None, ...]) -> dict[int, int]:
    return {i: int(inputs[i].shape[d]) for i, d in enumerate(dims) if d is not None}


def resolve(batch: Any, inputs: list[Any], where: str, error: type[Exception]) -> Batch:
    """The :class:`Batch` of a case; ``error(message)`` for a ``batch=`` that cannot apply."""
    if batch is None:
        return Batch(None, why="the case opts out (batch=None)")
    if batch == AUTO:
        dims = tuple(0 if _rank(t) >= 2 else None for t in inputs)
        if not any(d is not None for d in dims):
            return Batch(None, why="no input of rank 2 or more, so no batch dimension")
        sizes = _sizes(inputs, dims)
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"inputs[{i}] {s}" for i, s in sizes.items())
            return Batch(None, why=f"the inputs disagree on the size of dimension 0 ({listed}); "
                                   "name the batch dimension with batch=")
        return _sized(dims, next(iter(sizes.values())))
    if isinstance(batch, bool) or not isinstance(batch, (int, tuple, list)):
        raise error(f"{where}: batch must be None, a dimension (int) or one dimension (or None) per input, "
                    f"got {batch!r}")
    if isinstance(batch, int):
        if batch < 0:
            raise error(f"{where}: batch={batch}: name the dimension from the front (0, 1, ...)")
        dims = tuple(batch if _rank(t) >= max(2, batch + 1) else None for t in inputs)
        if not any(d is not None for d in dims):
            raise error(f"{where}: batch={batch}, but no input has rank {max(2, batch + 1)} or more")
    else:
        if len(batch) != len(inputs):
            raise error(f"{where}: batch lists {len(batch)} dimension(s) for {len(inputs)} input(s); give one "
                        "entry per input (None for an input without a batch dimension)")
        for i, (d, t) in enumerate(zip(batch, inputs)):
            if d is None:
                continue
            if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d < max(_rank(t), 0):
                raise error(f"{where}: batch[{i}]={d!r} is not a dimension of inputs[{i}] (rank {_rank(t)})")
        dims = tuple(batch)
        if not any(d is not None for d in dims):
            return Batch(None, why="the case opts out (no input has a batch dimension)")
    sizes = _sizes(inputs, dims)
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"inputs[{i}] dim {dims[i]}: {s}" for i, s in sizes.items())
        raise error(f"{where}: the batch dimensions disagree on their size ({listed})")
    return _sized(dims, next(iter(sizes.values())))


def _sized(dims: tuple[int | None, ...], size: int) -> Batch:
    if size == 0:  # nothing to repeat a sample from
        return Batch(None, why="the batch dimension has size 0")
    return Batch(dims, size)
