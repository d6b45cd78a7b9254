"""A library's objects as the probe reads them: assuming nothing that a legal object may refuse.

A library may refuse ``len()``, iteration, ``==``, ``bool()`` or hashing on purpose (e3nn's ``Irrep`` is a
tuple whose ``len()`` raises NotImplementedError), and print ``id(self)`` in its repr. Here lists, tuples and
dicts are read through the built-in types' own methods, which a subclass's overrides do not reach, and a repr
loses the addresses it prints, so that describing, fingerprinting and rebuilding a case never call what the
library overrides. Standard library only.
"""

from __future__ import annotations

import re
from typing import Any

_HEX_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{6,}")  # the first: what fingerprints always removed
_DECIMAL = re.compile(r"(?<![\w.])\d{6,}(?![\w.])")
MAX_DEPTH = 6
MAX_OBJECTS = 10_000  # objects whose ids a repr is cleaned of: a bound on the walk of a large model


def sequence_items(value: list | tuple) -> list[Any]:
    """The items of a list or tuple (or of a subclass, whatever its ``__iter__`` and ``__len__`` do)."""
    base = list if isinstance(value, list) else tuple
    return [base.__getitem__(value, i) for i in range(base.__len__(value))]


def dict_items(value: dict) -> list[tuple[Any, Any]]:
    """The entries of a dict (or of a subclass, whatever its ``items`` does), in order."""
    return list(dict.items(value))


def is_plain_container(value: Any) -> bool:
    """A list, tuple or dict itself, not a subclass that may give its items another meaning."""
    return type(value) in (list, tuple, dict)


def _reachable_ids(value: Any) -> set[int]:
    """The ids of ``value`` and of what it holds (attributes, items, a module's submodules), up to a bound."""
    seen: set[int] = set()
    stack = [(value, 0)]
    while stack and len(seen) < MAX_OBJECTS:
        obj, depth = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, complex, type(None))):
            continue
        seen.add(id(obj))
        if depth >= MAX_DEPTH:
            continue
        try:
            if isinstance(obj, dict):
                children = [item for pair in dict_items(obj) for item in pair]
            elif isinstance(obj, (list, tuple)):
                children = sequence_items(obj)
            else:
                children = []
            state = getattr(obj, "__dict__", None)
            if isinstance(state, dict):
                children += list(dict.values(state))
        except Exception:  # an attribute that refuses to be read: its ids stay in the repr
            continue
        stack += [(child, depth + 1) for child in children]
    return seen


def without_addresses(text: str) -> str:
    """``text`` without memory addresses: a repro's source or message may print an object
    (``<built-in method abs of type object at 0x7f24...>``), and its address differs in every process."""
    return _HEX_ADDRESS.sub("", text)


def address_free_repr(value: Any) -> str:
    """``repr(value)`` without addresses (``at 0x7f...``) and without the ``id()`` of anything ``value`` holds; a
    repr that raises is named by its type (the same text every time)."""
    try:
        text = repr(value)
    except Exception as exc:
        return f"<{type(value).__module__}.{type(value).__qualname__} whose repr raises {type(exc).__name__}>"
    text = without_addresses(text)
    if _DECIMAL.search(text):
        ids = _reachable_ids(value)
        text = _DECIMAL.sub(lambda m: "<id>" if int(m.group()) in ids else m.group(), text)
    return text
