"""Import case modules: where they are (sources) and their checked ``CASES`` (a worker builds its case with
run/case_builder.py).

A source is a dotted module name, a ``.py`` file, or a directory (every
``*.py`` in it that defines ``CASES``). Files inside a package are imported
under their dotted name, so relative imports work and ``where`` frames point
into the right package. Modules are imported under a fixed seed so that
``torch.rand`` inputs are identical in the inventory's child processes and in
every worker (the resume fingerprint hashes input values).
"""

from __future__ import annotations

import importlib
import os
import random
import re
import sys
import traceback
import types
from pathlib import Path

from ..base.source_paths import module_for_file
from .inventory import LoadError, Source, TorchLacks, join
from .registry import IMPORT_SEED, CaseError, CaseSpec


def _seed() -> None:
    random.seed(IMPORT_SEED)
    try:
        import numpy

        numpy.random.seed(IMPORT_SEED)
    except ImportError:
        pass
    import torch

    torch.manual_seed(IMPORT_SEED)


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
                module, path_entry = module_for_file(file)
                sources.append(Source(module, path_entry, f"{entry.rstrip('/')}/{file.name}", True))
        elif candidate.is_file():
            module, path_entry = module_for_file(candidate)
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


def missing_from_torch(exc: BaseException) -> str:
    """``torch.x.y`` when ``exc`` says that torch has no such module or name (an older torch than the case
    module was written for), else "". torch itself missing is not a version's gap."""
    name = ""
    if isinstance(exc, ModuleNotFoundError):
        name = exc.name or ""
    elif isinstance(exc, ImportError) and exc.name:
        imported = re.match(r"cannot import name '([^']+)'", str(exc))
        name = f"{exc.name}.{imported.group(1)}" if imported else ""
    elif isinstance(exc, AttributeError) and isinstance(getattr(exc, "obj", None), types.ModuleType):
        name = f"{exc.obj.__name__}.{exc.name}"
    return f"`{name}`" if name.startswith("torch.") else ""


def _skip_if_torch_lacks(exc: BaseException, source: Source) -> None:
    lacking = missing_from_torch(exc)
    if lacking:
        import torch

        raise TorchLacks(f"{source.label}: skipped under torch {torch.__version__}: it needs {lacking}, which this "
                         "torch does not have") from None


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
        _skip_if_torch_lacks(exc, source)
        raise LoadError(f"{source.label}: importing it failed: {type(exc).__name__}: {exc}"
                        f"{_user_frames(exc, _module_files(source))}") from None
    except Exception as exc:
        _skip_if_torch_lacks(exc, source)
        raise LoadError(f"{source.label}: importing it failed: {type(exc).__name__}: {exc}"
                        f"{_user_frames(exc, _module_files(source))}. Fix the case module.") from None
    except SystemExit as exc:  # sys.exit() in the module (or in what it imports) would end the probe silently
        where = _user_frames(exc, _module_files(source))
        raise LoadError(f"{source.label}: importing it called sys.exit({exc.code!r}){where}. A case module must "
                        "not exit the process: remove the call, or guard it with `if __name__ == \"__main__\":`."
                        ) from None
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


def imported_cases(source: Source) -> list[CaseSpec]:
    """Import one source and return its CASES, checked; [] for a helper module found in a directory."""
    module = _import(source)
    if module is None:
        return []
    registered = module.CASES
    if not isinstance(registered, (list, tuple)):
        raise LoadError(f"{source.label}: CASES is a {type(registered).__name__}; expected a list of "
                        "case(...) results.")
    for index, spec in enumerate(registered):
        if not isinstance(spec, CaseSpec):
            raise LoadError(f"{source.label}: CASES[{index}] is a {type(spec).__name__}, not a case. "
                            "Build every entry with sphinx_kexport.probe.case(...).")
        spec.module = source.module
    return list(registered)


def _renamed(spec: CaseSpec, name: str) -> CaseSpec:
    spec.name = name
    return spec


def _named(spec: CaseSpec, ref: str) -> CaseSpec:
    spec.ref = ref  # its aliases are read from its ref (CaseSpec.joinable)
    return spec


def _placed(spec: CaseSpec, package: str, section: str) -> CaseSpec:
    spec.package, spec.section = package, section
    return spec


def load_cases(sources: list[Source]) -> list[CaseSpec]:
    """Import every source in this process and return the cases in registration order; LoadError on any problem.

    The probe itself never does this in its parent (each module is imported in a child process, see
    :mod:`..run.inventory`); it serves ``discover`` and tools that want the cases themselves.
    """
    return load_inventory(sources)[0]


def load_inventory(sources: list[Source]) -> tuple[list[CaseSpec], list[tuple[CaseSpec, CaseSpec]]]:
    """The cases, and the (discovered, hand-written) pairs dropped because the hand-written case wins."""
    return join([(source.label, imported_cases(source)) for source in sources], lambda spec: spec.joinable,
                _renamed, _named, _placed)
