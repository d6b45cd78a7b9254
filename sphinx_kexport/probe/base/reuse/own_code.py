"""A digest of the probe's own code: a module, and every module of ``sphinx_kexport`` it imports, at any depth.

The discovery cache keys on its discovery code this way (``discover/docstrings.py`` or ``discover/suite.py``),
and the measurement records on the measuring code (every module of ``probe/measure/``): an edit to the code that
made a result makes it again, with no format number for anyone to remember to bump. Imports are read from the
source (nothing is imported), lazy imports inside functions included; the ``__init__.py`` of the packages they
pass through are hashed too (they run), not followed (their lazy imports are not that code's).
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

PROBE_DIR = Path(__file__).resolve().parents[2]  # sphinx_kexport/probe/
PACKAGE_DIR = PROBE_DIR.parent  # sphinx_kexport/
MEASURING = "measure"  # the probe's folder whose modules measure a case (and what they import)


def digest_files(files: Iterable[Path], root: Path, content: Callable[[Path], bytes] = Path.read_bytes) -> str:
    """sha256 of ``files``' paths (relative to ``root``) and ``content`` (their bytes), in path order."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        try:
            digest.update(content(path))
        except OSError:
            digest.update(b"<unreadable>")
        digest.update(b"\0")
    return digest.hexdigest()


def _code_tokens(source: bytes) -> bytes:
    """``source``'s Python tokens without its comments, blank lines and indentation widths: what the code does,
    not how it is laid out (an edit to a comment of the probe's code measures nothing again)."""
    kept = []
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
            continue
        kept.append(f"{token.type}:{'' if token.type == tokenize.INDENT else token.string}")
    return "\0".join(kept).encode()


def _code_of(path: Path) -> bytes:
    """``path``'s code tokens (:func:`_code_tokens`); its bytes when it does not tokenize."""
    source = path.read_bytes()
    try:
        return _code_tokens(source)
    except (SyntaxError, tokenize.TokenError):
        return source


def digest_code(files: Iterable[Path], root: Path) -> str:
    """:func:`digest_files` of ``files``' code (:func:`_code_of`), not their bytes."""
    return digest_files(files, root, _code_of)


def _imported_files(path: Path) -> tuple[set[Path], set[Path]]:
    """(files of ``sphinx_kexport`` that ``path`` imports, relative at any level or absolute, lazy imports
    included; the ``__init__.py`` of their packages, which run too)."""
    package_parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts[:-1])
    found: set[Path] = set()
    inits: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
            elif (node.module or "").split(".")[0] == PACKAGE_DIR.name:
                base = []
            else:
                continue
            module = base + (node.module.split(".") if node.module else [])
            candidates = [module] + [module + [alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name.split(".") for a in node.names if a.name.split(".")[0] == PACKAGE_DIR.name]
        else:
            continue
        for parts in candidates:
            target = PACKAGE_DIR.parent.joinpath(*parts)
            for file in (target.with_suffix(".py"), target / "__init__.py"):
                if file.is_file():
                    found.add(file.resolve())
                    inits.update(init.resolve() for init in (target.parents[i] / "__init__.py"
                                                             for i in range(len(parts) - 1)) if init.is_file())
    return found, inits


def code_files(starts: Iterable[Path]) -> list[Path]:
    """``starts`` and every module of the probe or of the snapshot contract they import, directly or through
    another (read from the source, so a module moved to another folder is still followed), with the
    ``__init__.py`` of the probe's packages on the way (hashed, not followed)."""
    seen: set[Path] = set()
    hashed: set[Path] = set()
    todo = sorted(path.resolve() for path in starts)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        found, inits = _imported_files(path)
        hashed |= inits
        # the probe imports nothing of the package but itself and the snapshot contract (tests/test_design.py)
        todo += sorted(f for f in found - seen if f.is_relative_to(PROBE_DIR)
                       or f.is_relative_to(PACKAGE_DIR / "snapshot"))
    return sorted(seen | {f for f in hashed if f.is_relative_to(PROBE_DIR)})


def measuring_files() -> list[Path]:
    """The probe's measuring code: every module of ``probe/measure/`` and what it imports."""
    return code_files((PROBE_DIR / MEASURING).glob("*.py"))


@lru_cache(maxsize=None)
def measuring_code() -> str:
    """The digest a measurement record carries (``measured[device].probe``) and its fingerprint covers: 16 hex
    digits of :func:`digest_code` over :func:`measuring_files` (read once per process)."""
    return digest_code(measuring_files(), PACKAGE_DIR)[:16]
