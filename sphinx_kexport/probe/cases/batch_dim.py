"""Which dimension of a case's inputs is its batch, and what a dynamic-batch result can say.

The batch is found over the tensor *leaves* of the inputs (an input may be a
dict, list or tuple of tensors, see containers.py), in the exporter's leaf
order (``in0``, ``in0_p3``, ``in1_0``, ...). ``case(..., batch=...)`` accepts:

* nothing (the default): dimension 0 of every tensor leaf of rank 2 or more,
  when those leaves agree on its size and none is sparse; otherwise the case has no batch
  dimension (its results then say why). A rank-1 leaf as long as that batch
  (kornia's per-sample angles, gates, factors) is *probably* per-sample: the
  pass first grows it with the batch too (``Batch.per_sample``) and falls back
  to holding it as given when the operator does not run eagerly that way;
* ``None``: no batch dimension (the dynamic-batch pass is skipped);
* an ``int`` ``d``: dimension ``d`` of every tensor leaf of rank
  ``max(2, d + 1)`` or more (they must agree on its size);
* a tuple or list with one entry per positional input: the batch dimension of
  that input (of every tensor leaf of it, for a container), or ``None`` for an
  input without one (they must agree on its size).

Resolution gives one entry per leaf (``int`` or ``None``); no torch import is
needed, only the leaves' ``shape``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from .containers import input_leaves, rebuild
from .layouts import is_sparse

AUTO = "auto"  # the default of ``case(batch=...)``


@dataclass(frozen=True)
class Batch:
    """The resolved batch of a case: one dimension per tensor leaf (or None), and its size.

    ``dims`` is None when the case has no batch dimension; ``why`` then says so in words.
    """

    dims: tuple[int | None, ...] | None
    size: int = 0
    why: str = ""
    # the default batch plus the rank-1 leaves as long as it (None when there are none): tried first,
    # because a per-sample vector left at the registered size ties the call to that batch
    per_sample: tuple[int | None, ...] | None = None


def _rank(value: Any) -> int:
    shape = getattr(value, "shape", None)
    return len(shape) if shape is not None else -1


def _label(name: str) -> str:
    """``in0`` -> ``inputs[0]``; a leaf inside a container keeps the exporter's name (``in0_p3``)."""
    match = re.fullmatch(r"in(\d+)", name)
    return f"inputs[{match.group(1)}]" if match else name


def _sizes(leaves: list[tuple[str, Any]], dims: tuple[int | None, ...]) -> dict[str, int]:
    return {_label(name): int(leaf.shape[d]) for (name, leaf), d in zip(leaves, dims) if d is not None}


def _position(name: str) -> int:
    """The positional input a leaf belongs to: ``in1_0`` -> 1."""
    return int(re.match(r"in(\d+)", name).group(1))  # type: ignore[union-attr]


def resolve(batch: Any, inputs: list[Any], where: str, error: type[Exception]) -> Batch:
    """The :class:`Batch` of a case; ``error(message)`` for a ``batch=`` that cannot apply."""
    if batch is None:
        return Batch(None, why="the case opts out (batch=None)")
    leaves = input_leaves(inputs)
    if isinstance(batch, str) and batch == AUTO:
        if not leaves:
            return Batch(None, why="no tensor input, so no batch dimension")
        if any(is_sparse(leaf) for _, leaf in leaves):  # an adjacency's rows are nodes, and it has no rows to copy
            return Batch(None, why="a sparse input: the dynamic-batch pass grows dense inputs only")
        dims = tuple(0 if _rank(leaf) >= 2 else None for _, leaf in leaves)
        if not any(d is not None for d in dims):
            return Batch(None, why="no input of rank 2 or more, so no batch dimension")
        sizes = _sizes(leaves, dims)
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{label} {size}" for label, size in sizes.items())
            return Batch(None, why=f"the inputs disagree on the size of dimension 0 ({listed}); "
                                   "name the batch dimension with batch=")
        size = next(iter(sizes.values()))
        grown = tuple(0 if d is None and _rank(leaf) == 1 and int(leaf.shape[0]) == size else d
                      for d, (_, leaf) in zip(dims, leaves))
        found = _sized(dims, size)
        if grown == dims or found.dims is None:
            return found
        return Batch(found.dims, found.size, per_sample=grown)
    if isinstance(batch, bool) or not isinstance(batch, (int, tuple, list)):
        raise error(f"{where}: batch must be None, a dimension (int) or one dimension (or None) per input, "
                    f"got {batch!r}")
    if isinstance(batch, int):
        if batch < 0:
            raise error(f"{where}: batch={batch}: name the dimension from the front (0, 1, ...)")
        dims = tuple(batch if _rank(leaf) >= max(2, batch + 1) else None for _, leaf in leaves)
        if not any(d is not None for d in dims):
            raise error(f"{where}: batch={batch}, but no input has rank {max(2, batch + 1)} or more")
    else:
        if len(batch) != len(inputs):
            raise error(f"{where}: batch lists {len(batch)} dimension(s) for {len(inputs)} input(s); give one "
                        "entry per input (None for an input without a batch dimension)")
        for i, d in enumerate(batch):
            if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
                raise error(f"{where}: batch[{i}]={d!r} is not a dimension (an int) or None")
        dims = tuple(batch[_position(name)] for name, _ in leaves)
        for (name, leaf), d in zip(leaves, dims):
            if d is not None and not 0 <= d < max(_rank(leaf), 0):
                raise error(f"{where}: batch[{_position(name)}]={d!r} is not a dimension of {_label(name)} "
                            f"(rank {_rank(leaf)})")
        if not any(d is not None for d in dims):
            return Batch(None, why="the case opts out (no input has a batch dimension)")
    sizes = _sizes(leaves, dims)
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{label}: {size}" for label, size in sizes.items())
        raise error(f"{where}: the batch dimensions disagree on their size ({listed})")
    return _sized(dims, next(iter(sizes.values())))


def _sized(dims: tuple[int | None, ...], size: int) -> Batch:
    if size == 0:  # nothing to repeat a sample from
        return Batch(None, why="the batch dimension has size 0")
    return Batch(dims, size)


def map_leaves(inputs: tuple[Any, ...] | list[Any], dims: tuple[int | None, ...],
               leaf: Callable[[Any, int | None], Any]) -> tuple[Any, ...]:
    """The inputs, containers kept, with ``leaf(value, its batch dim)`` applied to every leaf
    (in the same order as :func:`containers.input_leaves`)."""
    order = iter(dims)
    return tuple(rebuild(value, lambda item: leaf(item, next(order))) for value in inputs)
