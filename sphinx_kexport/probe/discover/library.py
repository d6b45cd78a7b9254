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
import os
import pkgutil
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from ..base.errors import ProbeError
from ..cases.public_names import aliases_of
from ..cases.registry import CaseSpec, public_path
from .progress import TESTING_HELPERS


# why a whole module yields nothing (the report's ref is the module's name): vocabulary.NO_CASE_KINDS
IMPORT_FAILED, BAD_ALL = "import failed", "bad __all__"
MODULE_WIDE = (IMPORT_FAILED, BAD_ALL, TESTING_HELPERS)
# the names of a library's testing helpers: a module part that is one of these (leading underscores aside). A fixed
# list: a prefix rule would take a library's own test_time_augmentation module for one
TESTING_PARTS = ("test", "tests", "testing", "test_utils", "testing_utils")


class DiscoveryError(ProbeError):
    """Raised by :func:`cases_from_docstrings` and :func:`cases_from_tests`: the library or its tests cannot
    be imported or run at all, so the package cannot be surveyed; the message says what to do."""


@dataclass
class ObjectReport:
    """One object with a docstring example: the cases it yields, or why none."""

    ref: str
    cases: list[CaseSpec] = field(default_factory=list)
    skip: str = ""  # one of SKIP_KINDS when it yields no case
    detail: str = ""
    dropped: list[str] = field(default_factory=list)  # calls that could not become cases, with why
    seconds: float = 0.0
    example: str = ""  # a digest of the example's text (docstrings: what the discovery cache compares)
    code: dict[str, str] | None = None  # the library code the example ran ({ref: digest}; None: not watched)


def matches(ref: str, patterns: Iterable[str]) -> bool:
    return any(ref == p or ref.startswith(p + ".") or fnmatch.fnmatchcase(ref, p) for p in patterns)


def selected(ref: str, include: Iterable[str], exclude: Iterable[str]) -> bool:
    """Whether ``include`` (empty: everything) takes ``ref`` and ``exclude`` leaves it in."""
    include = list(include)
    return (not include or matches(ref, include)) and not matches(ref, exclude)


def is_test_selector(pattern: str) -> bool:
    """Whether an include / exclude entry names test files or tests (``tests/nn/test_conv.py``,
    ``test_conv.py``, ``tests/nn/*``, a node id with ``::``) rather than the library's callables (dotted names)."""
    return "/" in pattern or "::" in pattern or pattern.endswith(".py")


def callable_patterns(patterns: Iterable[str]) -> list[str]:
    """The entries of ``patterns`` that name callables (dotted names), not test files."""
    return [p for p in patterns if not is_test_selector(p)]


def chosen_tests(include: Iterable[str], exclude: Iterable[str]) -> Callable[[str], bool] | None:
    """Whether a test (its node id, relative to pytest's rootdir) runs, as the test-file entries of ``include``
    and ``exclude`` say (:func:`is_test_selector`); None when they name none (every test runs)."""
    tests_in = [p for p in include if is_test_selector(p)]
    tests_out = [p for p in exclude if is_test_selector(p)]
    if not tests_in and not tests_out:
        return None
    return lambda node: ((not tests_in or any(_names_test(node, p) for p in tests_in))
                         and not any(_names_test(node, p) for p in tests_out))


def _names_test(node: str, pattern: str) -> bool:
    """``tests/nn/test_conv.py::test_x[a]`` is named by ``tests/nn/test_conv.py``, ``test_conv.py``, ``nn/``,
    ``test_conv.py::test_x``, ``tests/nn/*``: a path (its last parts will do) up to a ``/``, ``::``, ``[`` or
    the end, or a ``*`` pattern of the node id or its file."""
    path = pattern.rstrip("/").replace(os.sep, "/")
    return (re.search(rf"(^|/){re.escape(path)}($|/|::|\[)", node) is not None
            or fnmatch.fnmatchcase(node, pattern) or fnmatch.fnmatchcase(node.split("::", 1)[0], pattern))


def testing_name(name: str) -> bool:
    """Whether the dotted module name ``name`` is a library's testing helpers: one of its parts, leading
    underscores aside, is in :data:`TESTING_PARTS` (``gnnlib.testing``, ``lib._testing.asserts``,
    ``lib.utils.testing_utils``)."""
    return any(part.lstrip("_") in TESTING_PARTS for part in name.split("."))


def testing_asked(package: str, include: Iterable[str]) -> bool:
    """Whether the survey asks for the library's testing helpers: the package surveyed is one, or an
    ``include`` entry names one (``include=["gnnlib.testing"]``)."""
    return testing_name(package) or any(testing_name(p) for p in callable_patterns(include))


def library_objects(package: str, include: Iterable[str] = (), exclude: Iterable[str] = ()
                    ) -> tuple[list[Any], dict[str, Any], list[ObjectReport]]:
    """(the modules read, ref -> public function or class, a report for each module or object left out).

    The library's testing helpers (:func:`testing_name`) are left out unless asked for
    (:func:`testing_asked`): each module of them is reported, not imported, and an object defined in one
    is not recorded wherever it is exported (reported when exported elsewhere)."""
    asked = testing_asked(package, include)
    modules, failures = public_modules(package, exclude, testing=asked)
    top = package.split(".")[0]
    objects = public_objects(modules, top, package)
    if not asked:
        for ref, obj in list(objects.items()):
            home = getattr(obj, "__module__", "") or ""
            if testing_name(home):
                del objects[ref]
                failures.append(ObjectReport(ref, skip=TESTING_HELPERS,
                                             detail=_testing_detail(home, "defined in ")))
    return modules, objects, failures


def _testing_detail(module: str, where: str = "") -> str:
    """Why a testing helper is left out: ``where`` says how the reported object relates to ``module``."""
    return (f"{where}{module}, a module of the library's testing helpers (named {', '.join(TESTING_PARTS)}): "
            "not recorded as an operator. To survey it, include it "
            f"(include=[{module!r}], or discover --include {module})")


def public_modules(package: str, exclude: Iterable[str] = (), testing: bool = True
                   ) -> tuple[list[Any], list[ObjectReport]]:
    """(the package and its public submodules, a report for each submodule that cannot be read).

    A submodule that does not import, or whose ``__all__`` lists something other than names, is reported
    (which module, what is wrong, what to do) and left out; the others are still surveyed. A module that
    ``exclude`` takes is not imported (nor its submodules walked): the way round a module that cannot be read.
    Without ``testing``, a submodule of the library's testing helpers is reported and not imported either.
    """
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
    exclude = list(exclude)
    modules, failures = [], []
    for module in [root, *_submodules(root, exclude, failures, testing)]:
        wrong = misnamed(module)
        if wrong:
            failures.append(ObjectReport(module.__name__, skip=BAD_ALL, detail=wrong + _leave_out(
                module.__name__, "Its names are not read (what only it exports is not surveyed)")))
        else:
            modules.append(module)
    return sorted(modules, key=lambda m: m.__name__), failures


def _submodules(package: Any, exclude: list[str], failures: list[ObjectReport], testing: bool) -> Iterator[Any]:
    """The public submodules of ``package``, depth first, importing each only when ``exclude`` leaves it in
    (``pkgutil.walk_packages`` imports every package it walks into, and stops at the first that raises)."""
    for info in pkgutil.iter_modules(getattr(package, "__path__", []), prefix=package.__name__ + "."):
        if any(part.startswith("_") for part in info.name.split(".")) or matches(info.name, exclude):
            continue
        if not testing and testing_name(info.name):
            failures.append(ObjectReport(info.name, skip=TESTING_HELPERS,
                                         detail=_testing_detail(info.name)))
            continue
        try:
            module = importlib.import_module(info.name)
        except (Exception, SystemExit) as exc:  # reported: its objects are not surveyed
            failures.append(ObjectReport(info.name, skip=IMPORT_FAILED,
                                         detail=f"{type(exc).__name__}: {exc}" + _leave_out(
                                             info.name, "Its objects are not surveyed")))
            continue
        yield module
        if info.ispkg:
            yield from _submodules(module, exclude, failures, testing)


def _leave_out(module: str, lost: str) -> str:
    return (f". {lost}; the rest of the library is. To leave it out without this report, "
            f"exclude it (discover --exclude {module}, or exclude=[{module!r}] in the case module's "
            "cases_from_docstrings / cases_from_tests)")


def misnamed(module: Any) -> str:
    """What is wrong with ``module.__all__`` ("" when it is absent or lists names): ``from module import *``
    fails the same way on it."""
    listed = getattr(module, "__all__", None)
    if listed is None:
        return ""
    if isinstance(listed, (str, bytes)) or not isinstance(listed, (list, tuple)):
        return (f"{module.__name__}.__all__ is a {type(listed).__name__}, not a list of names: write "
                f"__all__ = [\"name\", ...]")
    wrong = [entry for entry in listed if not isinstance(entry, str)]
    if not wrong:
        return ""
    shown = ", ".join(f"{getattr(e, '__name__', repr(e)[:40])} ({_kind(e)})" for e in wrong[:3])
    more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
    return (f"{module.__name__}.__all__ lists {shown}{more} instead of {'its name' if len(wrong) == 1 else 'their names'}"
            f" (`from {module.__name__} import *` raises TypeError too): write the names as strings")


def _kind(obj: Any) -> str:
    """"a class", "a function", "a module", "an int"."""
    kind = ("class" if inspect.isclass(obj) else "function" if inspect.isfunction(obj)
            else "module" if inspect.ismodule(obj) else type(obj).__name__)
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


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
    """ref -> the other public names of the same object spelled with another last name (timm's
    ``SqueezeExcite = SEModule``), each under the shortest module path that has it (``modules`` are imported:
    :func:`~..cases.public_names.aliases_of` reads them)."""
    found: dict[str, list[str]] = {}
    for ref in objects:
        by_name: dict[str, str] = {}
        for alias in aliases_of(ref):  # shortest first
            by_name.setdefault(alias.rsplit(".", 1)[1], alias)
        by_name.pop(ref.rsplit(".", 1)[1], None)
        if by_name:
            found[ref] = sorted(by_name.values())
    return found


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


def random_states() -> tuple[Any, Any, Any]:
    """Python's, torch's and numpy's global random states now (numpy's None when it is not installed)."""
    import torch

    try:
        import numpy
    except ImportError:
        return random.getstate(), torch.get_rng_state(), None
    return random.getstate(), torch.get_rng_state(), numpy.random.get_state()


def set_random_states(states: tuple[Any, Any, Any]) -> None:
    """Set the global random states :func:`random_states` returned."""
    import torch

    python_state, torch_state, numpy_state = states
    random.setstate(python_state)
    torch.set_rng_state(torch_state)
    if numpy_state is not None:
        import numpy

        numpy.random.set_state(numpy_state)


@contextlib.contextmanager
def random_state_kept() -> Iterator[None]:
    """Restore Python's, torch's and numpy's global random state (the examples seed them) afterwards."""
    states = random_states()
    try:
        yield
    finally:
        set_random_states(states)


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
