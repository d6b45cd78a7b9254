"""Case inputs as torch.export and the ONNX exporter accept them: tensors, or dicts, lists and tuples of them.

One walk (:func:`walk`), used everywhere the probe needs the leaves of a case's
inputs or rebuilds them: validation, fresh copies per path, placing baked
arguments on a device, the dynamic-batch pass, fingerprints, the snapshot's flat
``inputs`` list and the ONNX feed. A NamedTuple is a tuple whose type is kept
wherever it is rebuilt. Leaves are named as the ONNX exporter names its graph
inputs: positional input ``i`` is ``in{i}``, a dict entry adds ``_{key}``, a
list or tuple item ``_{index}`` (``in0_p3``, ``in1_0``); dict order is kept.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from .opaque import dict_items, sequence_items


def is_named_tuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def walk(value: Any, path: tuple = (), is_leaf: Callable[[Any], bool] | None = None) -> Iterator[tuple[tuple, Any]]:
    """(path, leaf) for every non-container value inside ``value``, in the exporter's order: a dict's entries by
    key, a list's or tuple's items by index. ``is_leaf`` stops the walk at a container it accepts."""
    if is_leaf is not None and is_leaf(value):
        yield path, value
    elif isinstance(value, dict):  # read through dict's and tuple's own methods: a subclass may refuse them
        for key, item in dict_items(value):
            yield from walk(item, (*path, key), is_leaf)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(sequence_items(value)):
            yield from walk(item, (*path, index), is_leaf)
    else:
        yield path, value


def leaf_shapes(inputs: list[Any]) -> tuple[tuple[int, ...], ...]:
    """The shape of every tensor leaf of a case's inputs, in the exporter's order."""
    return tuple(tuple(int(d) for d in leaf.shape) for _, leaf in input_leaves(inputs) if hasattr(leaf, "shape"))


def leaves(value: Any, name: str) -> Iterator[tuple[str, Any]]:
    """(name, leaf) for every non-container value inside ``value``, in the exporter's order."""
    for path, leaf in walk(value):
        yield name + "".join(f"_{key}" for key in path), leaf


def input_leaves(inputs: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]]:
    """Every leaf of a case's positional inputs, named in0, in0_key, in1_0, ..."""
    return [pair for i, value in enumerate(inputs) for pair in leaves(value, f"in{i}")]


def rebuild(value: Any, leaf: Callable[[Any], Any], keep_types: bool = True) -> Any:
    """``value`` with the same containers and ``leaf`` applied to every leaf. A NamedTuple (and any other list or
    tuple subclass) keeps its type; with ``keep_types=False`` every list is a list and every tuple a tuple. A
    subclass none of whose leaves ``leaf`` changes is kept itself: a library's own tuple (e3nn's ``Irrep``) need
    not take its items back in its constructor."""
    if isinstance(value, dict):
        return {key: rebuild(item, leaf, keep_types) for key, item in dict_items(value)}
    if isinstance(value, (list, tuple)):
        items = [rebuild(item, leaf, keep_types) for item in sequence_items(value)]
        if keep_types and type(value) not in (list, tuple):
            if all(new is old for new, old in zip(items, sequence_items(value))):
                return value
            return type(value)(*items) if is_named_tuple(value) else type(value)(items)
        return items if isinstance(value, list) else tuple(items)
    return leaf(value)


def skeleton(value: Any) -> Any:
    """The containers of ``value`` with None for every leaf, as fingerprints hash them: a NamedTuple as a plain
    tuple, as it always was (a fingerprint that changed would measure every such case again)."""
    return rebuild(value, lambda leaf: None, keep_types=False)
