"""Import case modules and check the whole inventory before anything runs.

A source is a dotted module name, a ``.py`` file, or a directory (every
``*.py`` in it that defines ``CASES``). Files inside a package are imported
under their dotted name, so relative imports work and ``where`` frames point
into the right package. Modules are imported under a fixed seed so that
``torch.rand`` inputs are identical in the parent and in every worker (the
resume fingerprint hashes input values).
"""

from __future__ import annotations

import gc
import importlib
import os
import random
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from .docstrings import duplicate_of, is_discovered
from .registry import CaseError, CaseSpec

IMPORT_SEED = 0


class LoadError(Exception):
    """A case module or case that cannot be used; the message says where and what to do."""


@dataclass(frozen=True)
class Source:
    """One entry of ``cases``: how to import it, and how to name it in messages."""

    module: str
    path_entry: str  # directory put on sys.path first ("" for none)
    label: str
    found_in_directory: bool = False  # then a module without CASES is a helper, not a mistake


def _seed() -> None:
    random.seed(IMPORT_SEED)
    try:
        import numpy

        numpy.random.seed(IMPORT_SEED)
    except ImportError:
        pass
    import torch

    torch.manual_seed(IMPORT_SEED)


def _module_for_file(path: Path) -> tuple[str, str]:
    """(dotted module name, sys.path entry) for a file, walking up through packages."""
    path = path.resolve()
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").exists() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), str(directory)


def resolve_sources(entries: list[str], root: Path) -> list[Source]:
    """Turn ``cases`` entries (relative to ``root``) into importable sources, in order."""
    sources: list[Source] = []
    for entry in entries:
        candidate = (root / entry) if not os.path.isabs(entry) else Path(entry)
        looks_like_path = entry.endswith(".py") or "/" in entry or os.sep in entry or candidate.exists()
        if not looks_like_path:
            sources.append(Source(entry, str(root), entry))
            continue
        if candidate.is_dir():
            files = sorted(p for p in candidate.glob("*.py") if not p.name.startswith(("_", "test_", "conftest")))
            if not files:
                raise LoadError(f"cases entry {entry!r}: the directory {candidate} holds no .py case files. "
                                "Point `cases` at case modules (files that define CASES).")
            for file in files:
                module, path_entry = _module_for_file(file)
                sources.append(Source(module, path_entry, f"{entry.rstrip('/')}/{file.name}", True))
        elif candidate.is_file():
            module, path_entry = _module_for_file(candidate)
            sources.append(Source(module, path_entry, entry))
        else:
            raise LoadError(f"cases entry {entry!r}: no such file or directory (looked for {candidate}). "
                            "Give a module name (pkg.cases), a .py file or a directory of case files.")
    unique: dict[str, Source] = {}
    for source in sources:  # a file listed both alone and through its directory is one module
        unique.setdefault(source.module, source)
    return list(unique.values())


def _user_frames(exc: BaseException, files: set[str]) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.realpath(f.filename) in files]
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {last.filename}:{last.lineno}: {(last.line or '').strip()})"


def _import(source: Source) -> object | None:
    if source.path_entry and source.path_entry not in sys.path:
        sys.path.insert(0, source.path_entry)
    _seed()
    try:
        module = importlib.import_module(source.module)
    except CaseError as exc:
        raise LoadError(f"{source.label}: {exc}") from None
    except ModuleNotFoundError as exc:
        if exc.name and source.module.startswith(exc.name):
            raise LoadError(f"{source.label}: cannot import module {source.module!r}. Check the `cases` entry "
                            "(a module must be importable from the directory of pyproject.toml).") from None
        raise LoadError(f"{source.label}: importing it failed: {type(exc).__name__}: {exc}"
                        f"{_user_frames(exc, _module_files(source))}") from None
    except Exception as exc:
        raise LoadError(f"{source.label}: importing it failed: {type(exc).__name__}: {exc}"
                        f"{_user_frames(exc, _module_files(source))}. Fix the case module.") from None
    if not hasattr(module, "CASES"):
        if source.found_in_directory:
            return None  # a helper module next to the case files
        raise LoadError(f"{source.label}: defines no CASES. A case module must end with "
                        "CASES = [case(...), ...].")
    return module


def _module_files(source: Source) -> set[str]:
    module = sys.modules.get(source.module)
    files = {os.path.realpath(getattr(module, "__file__", "") or "")} if module else set()
    # the module may have failed before landing in sys.modules: match its expected file name
    tail = source.module.replace(".", os.sep) + ".py"
    files.add(os.path.realpath(os.path.join(source.path_entry, tail)))
    return files


def qualified_name(spec: CaseSpec) -> str:
    """``Normalize[doc]`` of ``kornia.enhance`` -> ``Normalize[doc][kornia.enhance]``.

    Discovery names a case after the callable's last name, which two surveyed
    packages may share. Every process imports the same sources in the same
    order, so the later one is renamed the same way everywhere.
    """
    return f"{spec.name}[{spec.package}]"


def load_cases(sources: list[Source]) -> list[CaseSpec]:
    """Import every source and return the cases in registration order; LoadError on any problem."""
    return load_inventory(sources)[0]


def load_inventory(sources: list[Source]) -> tuple[list[CaseSpec], list[tuple[CaseSpec, CaseSpec]]]:
    """The cases, and the (discovered, hand-written) pairs dropped because the hand-written case wins.

    A case from ``cases_from_docstrings`` that repeats a hand-written one (same
    ``ref``, same input shapes) is dropped here, where every module is known.
    """
    cases: list[CaseSpec] = []
    owner: dict[str, str] = {}
    for source in sources:
        module = _import(source)
        if module is None:
            continue
        registered = module.CASES
        if not isinstance(registered, (list, tuple)):
            raise LoadError(f"{source.label}: CASES is a {type(registered).__name__}; expected a list of "
                            "case(...) results.")
        for index, spec in enumerate(registered):
            if not isinstance(spec, CaseSpec):
                raise LoadError(f"{source.label}: CASES[{index}] is a {type(spec).__name__}, not a case. "
                                "Build every entry with sphinx_kexport.probe.case(...).")
            if spec.name in owner and is_discovered(spec) and owner[spec.name] != source.label:
                spec.name = qualified_name(spec)  # two packages' docstrings both call a `Normalize`
            if spec.name in owner:
                where = "twice in this module" if owner[spec.name] == source.label else \
                    f"in {owner[spec.name]} and in {source.label}"
                raise LoadError(f"case {spec.name!r} is registered {where}. Case names must be unique across "
                                "all case modules: rename one (e.g. add a [variant] suffix).")
            owner[spec.name] = source.label
            spec.origin = source.module
            cases.append(spec)
    if not cases:
        raise LoadError("the case modules register no cases: " + ", ".join(s.label for s in sources))
    hand = [spec for spec in cases if not is_discovered(spec)]
    dropped = [(spec, found) for spec in cases if is_discovered(spec)
               for found in [duplicate_of(spec, hand)] if found is not None]
    gone = {id(spec) for spec, _ in dropped}
    return [spec for spec in cases if id(spec) not in gone], dropped


class CasesByName:
    """A worker's cases: the one case module that registers the asked-for case is imported on demand.

    ``origins`` maps every case name to its source module (the parent's
    inventory). Only one case module is kept at a time, so a worker holds one
    area's docstring examples and cases, not the whole survey's, and a
    worker that replaces a killed one starts at once. Names are the
    parent's: a discovered case the parent qualified
    (:func:`qualified_name`) is found under that name too.
    """

    def __init__(self, sources: list[Source], origins: dict[str, str]):
        self.sources = {source.module: source for source in sources}
        self.origins = dict(origins)
        self.module = ""
        self.cases: dict[str, CaseSpec] = {}

    def __getitem__(self, name: str) -> CaseSpec:
        module = self.origins.get(name)
        if module is None or module not in self.sources:
            raise LoadError(f"case {name!r} is not in the parent's inventory; run the probe again")
        if module != self.module:
            self._load(module)
        if name not in self.cases:
            raise LoadError(f"{self.sources[module].label} no longer registers case {name!r} (was it edited while "
                            "the probe ran?); run the probe again")
        spec = self.cases[name]
        spec.name = name
        return spec

    def _load(self, module: str) -> None:
        if self.module:
            self.cases = {}
            sys.modules.pop(self.module, None)  # its discovered cases and examples are freed
            gc.collect()
        self.module = module
        imported = _import(self.sources[module])
        for spec in getattr(imported, "CASES", ()):
            spec.origin = module
            self.cases.setdefault(spec.name, spec)
            if is_discovered(spec):
                self.cases.setdefault(qualified_name(spec), spec)
