"""What discovery reads of a library, shared by its two sources of cases (docstring examples, the test suite).

The public modules and objects of a package, the callables the recorder
stands in for while examples or tests run, the aliases an object is known
by, where a ref is listed (package and section), how a case is named after
its ref, and the global random state kept around a discovery.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
import importlib.util
import inspect
import pkgutil
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..base.errors import ProbeError
from ..cases.registry import CaseSpec, public_path


class DiscoveryError(ProbeError):
    """The package cannot be surveyed at all (it does not import); the message says what to do."""


@dataclass
class ObjectReport:
    """One object with a docstring example: the cases it yields, or why none."""

    ref: str
    cases: list[CaseSpec] = field(default_factory=list)
    skip: str = ""  # one of SKIP_KINDS when it yields no case
    detail: str = ""
    dropped: list[str] = field(default_factory=list)  # calls that could not become cases, with why
    seconds: float = 0.0


def matches(ref: str, patterns: Iterable[str]) -> bool:
    return any(ref == p or ref.startswith(p + ".") or fnmatch.fnmatchcase(ref, p) for p in patterns)


def selected(ref: str, include: Iterable[str], exclude: Iterable[str]) -> bool:
    """Whether ``include`` (empty: everything) takes ``ref`` and ``exclude`` leaves it in."""
    include = list(include)
    return (not include or matches(ref, include)) and not matches(ref, exclude)


def public_modules(package: str) -> tuple[list[Any], list[ObjectReport]]:
    try:
        installed = importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # a parent package that does not import, or a bad name
        installed = False
    try:
        root = importlib.import_module(package)
    except Exception as exc:
        if installed:  # the name is right: the library (or one of its dependencies) fails to import
            raise DiscoveryError(f"cannot import {package!r}: it is installed, but importing it raises "
                                 f"{type(exc).__name__}: {exc}. Fix the environment (a missing or mismatched "
                                 "dependency, say) and run again.") from None
        raise DiscoveryError(f"cannot import {package!r} ({type(exc).__name__}: {exc}). Give the import name of "
                             "an installed package, e.g. kornia.filters.") from None
    modules, failures = [root], []
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), prefix=package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except Exception as exc:  # reported: its examples are not surveyed
            failures.append(ObjectReport(info.name, skip="import failed", detail=f"{type(exc).__name__}: {exc}"))
    return sorted(modules, key=lambda m: m.__name__), failures


def public_names(module: Any) -> list[str]:
    """The names ``module`` exports: its ``__all__``, else every name without a leading underscore."""
    return getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]


def public_objects(modules: list[Any], top: str, package: str) -> dict[str, Any]:
    """ref -> function or class defined in the library and reachable under a public name."""
    found: dict[int, Any] = {}
    for module in modules:
        for name in public_names(module):
            obj = getattr(module, name, None)
            home = getattr(obj, "__module__", "") or ""
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and (home == top or home.startswith(top + ".")):
                found.setdefault(id(obj), obj)
    refs: dict[str, Any] = {}
    for obj in found.values():
        ref = public_path(obj, package)
        if ref.startswith(package + ".") and not any(p.startswith("_") for p in ref.split(".")):
            refs.setdefault(ref, obj)
    return dict(sorted(refs.items()))


def find_aliases(modules: list[Any], objects: dict[str, Any]) -> dict[str, list[str]]:
    """ref -> the other public names of the same object (timm's ``SqueezeExcite = SEModule``), each under
    the shortest module path that has it."""
    refs = {id(obj): ref for ref, obj in objects.items()}
    found: dict[str, dict[str, str]] = {}
    for module in modules:
        for name in public_names(module):
            ref = refs.get(id(getattr(module, name, None)))
            if ref is None or name == ref.rsplit(".", 1)[1]:
                continue
            alias = f"{module.__name__}.{name}"
            if any(part.startswith("_") for part in alias.split(".")):  # the name itself included
                continue
            known = found.setdefault(ref, {}).get(name)
            if known is None or len(alias) < len(known):
                found[ref][name] = alias
    return {ref: sorted(by_name.values()) for ref, by_name in found.items()}


def as_written(ref: str, aliases: dict[str, list[str]], source: str) -> str:
    """``ref``, or the alias the example's code spells when it spells only that one: a row is named and
    linked the way the library's own example names the object."""
    others = aliases.get(ref)
    if not others or re.search(rf"\b{re.escape(ref.rsplit('.', 1)[1])}\b", source):
        return ref
    used = [alias for alias in others if re.search(rf"\b{re.escape(alias.rsplit('.', 1)[1])}\b", source)]
    return used[0] if len(used) == 1 else ref


def place(ref: str, package: str) -> tuple[str, str]:
    """(package, section) of a ref: the surveyed package (at least two levels) and the submodule after it."""
    module_parts = ref.split(".")[:-1]
    while module_parts and module_parts[-1][:1].isupper():  # a method's class
        module_parts.pop()
    depth = max(len(package.split(".")), 2)
    group = ".".join(module_parts[:depth]) or package
    rest = module_parts[depth:]
    return group, (rest[0] if rest else "")


@contextlib.contextmanager
def random_state_kept() -> Iterator[None]:
    """Restore Python's, torch's and numpy's global random state (the examples seed them) afterwards."""
    import torch

    python_state, torch_state = random.getstate(), torch.get_rng_state()
    try:
        import numpy
    except ImportError:
        numpy = None
    numpy_state = numpy.random.get_state() if numpy is not None else None
    try:
        yield
    finally:
        random.setstate(python_state)
        torch.set_rng_state(torch_state)
        if numpy is not None:
            numpy.random.set_state(numpy_state)


def case_base_name(ref: str) -> str:
    """``pkg.mod.blur`` -> ``blur``; a method keeps its class: ``pkg.Quaternion.from_axis_angle`` -> ``Quaternion.from_axis_angle``."""
    parts = ref.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 and parts[-2][:1].isupper() else parts[-1]


def recorded_callables(objects: dict[str, Any]) -> tuple[dict[int, tuple[Any, str]], dict[type, str], dict[type, str]]:
    """What :func:`~.recording.recording` stands in for: (id -> (function, ref), module class -> ref, public class
    -> ref, whose own public methods are recorded). A module class is in both: kornia's rotations and poses
    (``So3``, ``Quaternion``) are modules whose operators are methods (``So3.hat``, ``q.slerp(...)``)."""
    import torch

    functions = {id(o): (o, r) for r, o in objects.items() if inspect.isfunction(o)}
    module_classes = {o: r for r, o in objects.items() if inspect.isclass(o) and issubclass(o, torch.nn.Module)}
    method_classes = {o: r for r, o in objects.items() if inspect.isclass(o) and not issubclass(o, BaseException)}
    return functions, module_classes, method_classes


class Switch:
    """A flag that a ``with`` block turns on: ``with switch.turned_on(): ...``, read as ``switch.active``."""

    def __init__(self) -> None:
        self.active = False

    @contextlib.contextmanager
    def turned_on(self) -> Iterator[None]:
        self.active = True
        try:
            yield
        finally:
            self.active = False
