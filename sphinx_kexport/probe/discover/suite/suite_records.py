"""What each file of a test suite depends on, so that a rerun runs again only the test files a change touched.

While discovery runs a suite, a :class:`~...measure.code_watch.CodeWatch` records, per test file,
the code its tests ran: importing it, its fixtures, its tests, as refs and syntax digests
(:mod:`..base.code_digest`: ``kornia/augmentation/base.py::_BasicAugmentationBase.forward``). A test file's
record holds that code, the syntax digest of the file itself and of each ``conftest.py`` above it, and the
node ids of its tests. What no one file runs (a conftest's import, a session fixture) is the suite's
``shared`` code, and the other ``.py`` files under the tests' path (helpers) are digested whole: a change to
either runs every file again. Syntax digests ignore comments, docstrings and formatting: an edit of those
runs nothing.

A file whose record still holds runs nothing: its tests' calls come from the discovery cache, and the
cases are selected again across the whole suite in pytest's order (``suite._Selector``), so that they are
the ones a discovery with an empty cache gives.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...base.code_digest import GONE, CodeCheck, CodePlaces, FileDigests, SourceDigests
from .suite_run import SHARED

ROOT_MARKERS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
DIGEST_STORE = "suite-code-digests.json"  # in the discovery cache's folder: what earlier runs parsed


@dataclass
class FileRecord:
    """One test file: the code its tests ran (None: not watched), its own and its conftests' digests, its
    tests that ran."""

    code: dict[str, str] | None
    files: dict[str, str]
    nodes: list[str] = field(default_factory=list)


@dataclass
class SuiteRecords:
    """What a stored discovery of a suite depends on, beside its key."""

    rootdir: str  # pytest's: test files are named from it, as in their node ids
    files: dict[str, FileRecord]  # test file (a node id's file part) -> its record
    shared: dict[str, str] | None  # code no one test file ran (None: not watched)
    helpers: dict[str, str]  # ref -> whole syntax digest of every other .py file under the tests' path


def config_root(path: Path) -> Path:
    """The first folder at or above the tests that holds a pytest configuration file (pytest's rootdir, as a
    rule); the tests' own folder when none does."""
    folder = path if path.is_dir() else path.parent
    for parent in [folder, *folder.parents]:
        if any((parent / name).is_file() for name in ROOT_MARKERS):
            return parent
    return folder


def places_for(top: str, library_dir: str, path: Path) -> CodePlaces:
    """Where a suite's refs point: the library's folder, and the project (its configuration's folder)."""
    return CodePlaces(top, library_dir, str(config_root(path)))


def whole_digest(digests: FileDigests | None) -> str:
    """One file's syntax digest: its top level and every function (blind to comments and formatting)."""
    if digests is None:
        return GONE
    text = digests.top + "".join(f"\n{name} {digest}" for name, digest in sorted(digests.functions.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def conftests(file: Path, path: Path) -> list[Path]:
    """The ``conftest.py`` files pytest loads for ``file``: in its folder and those above, up to the config root."""
    top = config_root(path)
    found = []
    for parent in [file.parent, *file.parent.parents]:
        if (parent / "conftest.py").is_file():
            found.append(parent / "conftest.py")
        if parent == top or top not in parent.parents:
            break
    return found


class Digests:
    """The syntax digests of files and refs as they are now, each file parsed once (and, with the store, only
    when its bytes changed since an earlier run)."""

    def __init__(self, places: CodePlaces, store: str | None):
        self.sources = SourceDigests(store)
        self.check = CodeCheck(places, self.sources)
        self.places = places

    def of_files(self, files: list[Path]) -> dict[str, str]:
        return {self.places.ref_for(str(f)): whole_digest(self.sources.of_file(str(f))) for f in files}

    def changed_files(self, recorded: dict[str, str]) -> list[str]:
        return [ref for ref, digest in sorted(recorded.items())
                if whole_digest(self._of_ref(ref)) != digest]

    def _of_ref(self, ref: str) -> FileDigests | None:
        where = self.places.path_for(ref)
        return self.sources.of_file(where) if where else None

    def save(self) -> None:
        self.sources.save()


def python_files(path: Path) -> list[Path]:
    return sorted(p.resolve() for p in path.rglob("*.py")) if path.is_dir() else [path.resolve()]


def file_path(records_or_rootdir: Any, file: str) -> Path:
    rootdir = getattr(records_or_rootdir, "rootdir", records_or_rootdir)
    return (Path(rootdir) / file).resolve()


def _said(refs: list[str], more: str = "") -> str:
    shown = ", ".join(refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
    return f"{shown} changed{more}"


def whole_suite_change(records: SuiteRecords, digests: Digests, library_same: bool) -> str:
    """Why every test file runs again ("" when nothing shared changed): the shared code, a helper, or the
    library's source when what the tests ran was not recorded."""
    if records.shared is None:
        return "" if library_same else "the library changed, and the code its tests ran was not recorded"
    shared = digests.check.changed(records.shared)
    if shared:
        return _said(shared, " (code that no one test file runs: a conftest, a session fixture)")
    helpers = digests.changed_files(records.helpers)
    if helpers:
        return _said(helpers, " (a file under the tests that is no test file)")
    return ""


def file_change(record: FileRecord, digests: Digests, where: Path, path: Path) -> str:
    """Why the recorded test file at ``where`` runs again ("" when its record holds)."""
    own = digests.changed_files(record.files)
    if own:
        return _said(own)
    added = sorted({digests.places.ref_for(str(f)) for f in conftests(where, path)} - set(record.files))
    if added:
        return f"{', '.join(added)} is new"
    if record.code is None:  # not watched: whole_suite_change compares the library's source
        return ""
    code = digests.check.changed(record.code)
    return _said(code) if code else ""


def changes(records: SuiteRecords, digests: Digests, path: Path, library_same: bool) -> dict[str, str]:
    """The recorded test files that run again and why, a change for all under the key ``SHARED``, and each new
    .py file under the tests' path (a new test file, perhaps) under its path, "new"; {} when nothing changed:
    then the suite need not even be collected. ``library_same``: whether the library's source is the one of
    the last discovery (what decides when its code was not recorded)."""
    why: dict[str, str] = {}
    everything = whole_suite_change(records, digests, library_same)
    if everything:
        why[SHARED] = everything
    for file, record in records.files.items():
        reason = file_change(record, digests, file_path(records, file), path)
        if reason:
            why[file] = reason
    refs = [*records.helpers, *(ref for record in records.files.values() for ref in record.files)]
    known = {file_path(records, file) for file in records.files}
    known |= {Path(p).resolve() for p in (digests.places.path_for(ref) for ref in refs) if p}
    for new in python_files(path):
        if new not in known:
            why[str(new)] = "new"
    return why


def build_records(rootdir: str, path: Path, files: dict[str, list[str]], code: dict[str, dict[str, str]] | None,
                  digests: Digests, kept: SuiteRecords | None = None, again: set[str] | None = None
                  ) -> SuiteRecords:
    """The records after a run: ``files`` maps each test file to its tests that ran; ``code`` is the watch's
    code by context (None: not watched). ``kept``/``again``: a rerun's earlier records, and the files it ran
    again (the others keep their record)."""
    records: dict[str, FileRecord] = {}
    for file, nodes in files.items():
        if kept is not None and again is not None and file not in again and file in kept.files:
            records[file] = FileRecord(kept.files[file].code, kept.files[file].files, nodes)
            continue
        where = file_path(rootdir, file)
        records[file] = FileRecord(None if code is None else dict(code.get(file, {})),
                                   digests.of_files([where, *conftests(where, path)]), nodes)
    shared = None if code is None else {**((kept.shared or {}) if kept is not None and again is not None else {}),
                                        **code.get(SHARED, {})}
    test_files = {file_path(rootdir, file) for file in files}
    helpers = digests.of_files([p for p in python_files(path) if p not in test_files and p.name != "conftest.py"])
    return SuiteRecords(rootdir, records, shared, helpers)
