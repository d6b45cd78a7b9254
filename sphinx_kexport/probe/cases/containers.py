"""Case inputs as torch.export and the ONNX exporter accept them: tensors, or dicts, lists and tuples of them.

One walk, used everywhere the probe needs the leaves: validation, fresh
copies per path, fingerprints, the snapshot's flat ``inputs`` list and the
ONNX feed. Leaves are named as the ONNX exporter names its graph inputs:
positional input ``i`` is ``in{i}``, a dict entry adds ``_{key}``, a list
or tuple item ``_{index}`` (``in0_p3``, ``in1_0``); dict order is kept.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator


def leaf_shapes(inputs: list[Any]) -> tuple[tuple[int, ...], ...]:
    """The shape of every tensor leaf of a case's inputs, in the exporter's order."""
    return tuple(tuple(int(d) for d in leaf.shape) for _, leaf in input_leaves(inputs) if hasattr(leaf, "shape"))


def leaves(value: Any, name: str) -> Iterator[tuple[str, Any]]:
    """(name, leaf) for every non-container value inside ``value``, in the exporter's order."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{name}_{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from leaves(item, f"{name}_{index}")
    else:
        yield name, value


def input_leaves(inputs: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]]:
    """Every leaf of a case's positional inputs, named in0, in0_key, in1_0, ..."""
    return [pair for i, value in enumerate(inputs) for pair in leaves(value, f"in{i}")]


def rebuild(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with the same containers and ``leaf`` applied to every leaf."""
    if isinstance(value, dict):
        return {key: rebuild(item, leaf) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [rebuild(item, leaf) for item in value]
        return items if isinstance(value, list) else tuple(items)
    return leaf(value)
