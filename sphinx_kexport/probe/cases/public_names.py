"""The other public names of the object a case calls: one object under several names is one operator.

A library often exports one function or class under several dotted names
(``kornia.geometry.fit_line`` is ``kornia.geometry.line.fit_line``). A case
names it by one of them (its ``ref``); the snapshot lists the others as the
case's ``aliases``, so that the page shows them on the row, its search finds
the row by any of them and its counts count the object once.

``module.attr`` is a public name of an object when no part of it starts with
``_`` and the module exports the object: lists ``attr`` in its ``__all__``,
or, having no ``__all__``, is a package (its ``__init__`` re-exports),
defines the object itself or binds it under a name of its own (``Ray =
ParametrizedLine``). A plain module that merely imports a function to use it
does not export it. The modules read are those of the library already
imported (discovery imports every public one; a hand-written case module, the
ones the library itself imports).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

# top package -> (sys.modules' mark, the modules read, id -> names)
_INDEX: dict[str, tuple[tuple[int, str, int], tuple[int, ...], dict[int, list[str]]]] = {}


def _modules_mark() -> tuple[int, str, int]:
    """A mark of ``sys.modules`` read in constant time: its size and its newest entry (an import adds one at
    the end). Reading the whole of it on every lookup cost 81 s for e3nn's 151 cases (thousands of modules)."""
    newest = next(reversed(sys.modules), "")
    return len(sys.modules), newest, id(sys.modules.get(newest))


def _private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def _exports(module: Any, attr: str, obj: Any) -> bool:
    listed = getattr(module, "__all__", None)
    if isinstance(listed, (list, tuple)):
        return attr in listed
    return (hasattr(module, "__path__") or getattr(obj, "__module__", None) == module.__name__
            or attr != getattr(obj, "__name__", attr))


def _index(top: str) -> dict[int, list[str]]:
    """id(object) -> its public names, for the functions and classes of ``top``'s imported modules (read again
    when more of them were imported since)."""
    mark, known = _modules_mark(), _INDEX.get(top)
    if known is not None and known[0] == mark:
        return known[2]
    modules = sorted((name, module) for name, module in list(sys.modules.items())
                     if module is not None and (name == top or name.startswith(top + ".")) and not _private(name))
    read = tuple(id(module) for _, module in modules)
    if known is not None and known[1] == read:  # other libraries' modules came: this one's names are the same
        _INDEX[top] = (mark, read, known[2])
        return known[2]
    names: dict[int, list[str]] = {}
    for module_name, module in modules:
        for attr, obj in list(vars(module).items()):
            if attr.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if _exports(module, attr, obj):
                names.setdefault(id(obj), []).append(f"{module_name}.{attr}")
    _INDEX[top] = (mark, read, names)
    return names


def _resolve(ref: str) -> tuple[Any, str] | None:
    """(the function or class ``ref`` names, or the class of the method it names; the method's ".name" or "")."""
    parts = ref.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        obj, rest = module, parts[cut:]
        for depth, part in enumerate(rest):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
            if inspect.isclass(obj) and depth < len(rest) - 1:  # a method (or nested name) of this class
                return obj, "." + ".".join(rest[depth + 1:])
        return (obj, "") if inspect.isfunction(obj) or inspect.isclass(obj) else None
    return None


def aliases_of(ref: str) -> tuple[str, ...]:
    """The public names of what ``ref`` names other than ``ref`` itself, shortest first; () when it has no other
    (or ``ref`` names nothing of an imported library)."""
    if not ref or _private(ref):
        return ()
    found = _resolve(ref)
    if found is None:
        return ()
    obj, tail = found
    names = {name + tail for name in _index(ref.split(".")[0]).get(id(obj), ())}
    names.discard(ref)
    return ordered(names)


def ordered(names: Any) -> tuple[str, ...]:
    """Shortest path first (fewest dots, then fewest characters), then in text order."""
    return tuple(sorted(names, key=lambda name: (name.count("."), len(name), name)))
