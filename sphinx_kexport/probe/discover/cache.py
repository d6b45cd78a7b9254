"""The discovery cache: a rerun with nothing changed loads the docstring cases instead of running the examples.

``cases_from_docstrings`` (and ``discover``) run every docstring example of a
package, which for all of Kornia takes minutes and gigabytes, on every import
of the case modules. Their result only depends on what is in :func:`cache_key`:
the package and the arguments, the versions of Python, torch, numpy, the library
and its direct requirements, the source of the probe's discovery code
(``docstrings.py`` and every probe module it imports, directly or not), and the
source of the library (every ``.py`` file of its top-level package). One file
per package and arguments is kept in :func:`cache_dir`; writing a new key
removes the file of the old one.

The library's source is not in the key but in the file (``Stored.library_source``).
Each docstring example's entry names the library code it ran and a digest of its
text: when the library changed, only the examples whose code or text changed run
again (and new ones), the others are loaded (:mod:`.docstrings`). A test suite's
file says what each test file's tests ran (``Stored.suite``): only the test files
whose code, own source or conftests changed run again (:mod:`.suite_records`).

Each object's report (why it has no case, and the rest of what it says) is pickled
on its own, and each of its cases apart from it, then unpickled once to check that it
gives the same fingerprints. The file is a small header (the key, and where each
report's and each case's bytes lie) followed by them, so a worker that needs one
case reads the header and that one case, not the whole file nor the other cases of its example
(SigLip2Model's example makes a preprocessor case beside the 1.5 GB model's). Large tensors lie after
the pickles, each content once, and the untouched random weights of a module the example built are kept as
how to build it again (case_pickle.py, rebuilt_weights.py): kornia.models' file held 2.4 GB of them, a
pull-request job's restore before it measured anything. A report that does
not pickle (a baked argument that is a lambda, say) or does not come back equal
is stored as "run again", with the base names its cases used so that later names stay
the same; loading then runs only those examples (:mod:`docstrings` does).

The cache is read with :mod:`pickle`, so it is trusted like the code it was
made from: it lives in the user's own cache directory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import pickle
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from functools import lru_cache
from typing import Any, Callable

from ..base.reuse.own_code import code_files, digest_code, digest_files
from .case_pickle import BlobIndex, CasePickler, CaseUnpickler

ENV_VAR = "KEXPORT_DISCOVERY_CACHE"
OFF_VALUES = ("off", "0", "no", "false", "none")
CACHE_FORMAT = 7  # bump when what a cache file holds changes (2: each report read alone; 3: each case; 4: the code
# and text of each docstring example, the library's source in the file; 5: a test suite's code per test file; 6: a
# test's calls its selection did not keep stored by place, without a name; 7: each storage's content once in
# the file, a module's untouched random weights as how to build them again: an older file is not read)
_REFRESH = {"on": False}
_PROBE_DIR = Path(__file__).resolve().parent.parent
_PACKAGE_DIR = _PROBE_DIR.parent  # sphinx_kexport/


def cache_dir() -> Path | None:
    """Where cache files live; None when ``KEXPORT_DISCOVERY_CACHE=off``.

    ``KEXPORT_DISCOVERY_CACHE`` names the directory; by default it is
    ``$XDG_CACHE_HOME/sphinx-kexport/discovery`` (``~/.cache/...`` without XDG_CACHE_HOME).
    """
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() in OFF_VALUES:
        return None
    if value:
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base).expanduser() / "sphinx-kexport" / "discovery"


def refresh(on: bool = True) -> None:
    """From now on in this process, discovery runs the examples again and replaces the cache files (the probe's ``--rediscover``, discover's ``--fresh``)."""
    _REFRESH["on"] = bool(on)


def refreshing() -> bool:
    return _REFRESH["on"]


# --------------------------------------------------------------------------
# the key


@lru_cache(maxsize=None)
def library_source_digest(top: str) -> str:
    """sha256 of every ``.py`` file of the top-level package ``top`` (its path and bytes); "" when not found.

    Read once per process: the probe's parent discovers a dozen areas of one library.
    """
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return ""
    if spec is None:
        return ""
    if spec.submodule_search_locations:
        roots = [Path(p) for p in spec.submodule_search_locations]
        files = [(root, p) for root in roots if root.is_dir() for p in root.rglob("*.py")]
        digest = hashlib.sha256()
        for root in roots:
            digest.update(digest_files([p for r, p in files if r == root], root).encode())
        return digest.hexdigest()
    if spec.origin and os.path.isfile(spec.origin):
        origin = Path(spec.origin)
        return digest_files([origin], origin.parent)
    return ""


def discovery_code_files(entry: str = "docstrings/docstrings.py") -> list[Path]:
    """The discovery module (``discover/<entry>``: docstrings/docstrings.py, or suite/suite.py for the tests) and every module of
    the package it imports, at any depth (:func:`~..base.reuse.own_code.code_files`)."""
    return code_files([_PROBE_DIR / "discover" / entry])


@lru_cache(maxsize=None)
def _distribution_versions(top: str) -> dict[str, str]:
    """Versions of the distributions that provide ``top`` and of their direct requirements (read once per process)."""
    try:
        names = importlib.metadata.packages_distributions().get(top, [])
    except Exception:  # broken metadata: the source digest still covers the library
        names = []
    versions: dict[str, str] = {}
    for name in sorted(set(names)):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        versions[name] = dist.version
        for requirement in dist.requires or []:
            if "extra ==" in requirement:
                continue  # optional extras are not what the examples ran with
            required = re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]
            try:
                versions[required] = importlib.metadata.version(required)
            except importlib.metadata.PackageNotFoundError:
                versions[required] = "not installed"
    return versions


def _version(module_name: str) -> str:
    module = sys.modules.get(module_name)
    if module is not None and getattr(module, "__version__", None):
        return str(module.__version__)
    try:
        return importlib.metadata.version(module_name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cache_key(package: str, include: list[str], exclude: list[str], time_limit: float,
              entry: str = "docstrings/docstrings.py") -> dict[str, Any] | None:
    """Everything the result of discovering ``package`` depends on; None when the library's source is not found.
    ``entry``: the discovery module whose code (with what it imports) is in the key."""
    top = package.split(".")[0]
    source = library_source_digest(top)
    if not source:
        return None
    code = discovery_code_files(entry)
    return {
        "format": CACHE_FORMAT,
        "package": package, "include": list(include), "exclude": list(exclude), "time_limit": float(time_limit),
        "library_source": source,
        "versions": {"python": sys.version, "torch": _version("torch"), "numpy": _version("numpy"),
                     **dict(_distribution_versions(top))},
        "discovery_code": digest_code(code, _PACKAGE_DIR),
    }


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def cache_usage() -> dict[str, Any]:
    """What the discovery cache holds, for --stats: its directory, its files and their bytes (none when off)."""
    directory = cache_dir()
    if directory is None:
        return {}
    files = [path.stat().st_size for path in directory.glob("*.pickle")] if directory.is_dir() else []
    return {"directory": str(directory), "files": len(files), "bytes": sum(files)}


# --------------------------------------------------------------------------
# the file


# the arguments of a discovery: one file per package and arguments (the rest of the key says whether it is current)
ARGUMENTS = ("package", "include", "exclude", "time_limit", "tests", "per_operator")
MAGIC = b"KXDISC05"  # then the header's length (8 bytes, little-endian), the header, the pickles, the tensors


@dataclass
class Entry:
    """One example's report: where its pickled bytes lie after the header (the report without its cases,
    then each case), or ``length == -1`` when it must run again (its cases do not pickle)."""

    name: str
    bases: list[str]  # case base names its cases used, in order (they number the later cases); for a test, how
    # each case is found again when the test runs again
    offset: int = 0  # from the end of the header
    length: int = -1
    # (case name, offset, length), in order; a test's calls its selection did not keep come last, named None
    cases: list[tuple[str | None, int, int]] = field(default_factory=list)
    example: str = ""  # a digest of its example's text
    code: dict[str, str] | None = None  # the library code its example ran ({ref: digest}; None: not known)

    @property
    def stored(self) -> bool:
        return self.length >= 0


@dataclass
class Stored:
    """A cache file's header: a worker reads it and then only the bytes of the one report it needs (a
    package's file can hold large inputs, and models whose weights were changed after they were built)."""

    key: dict[str, Any]
    created: float
    seconds: float  # how long the discovery that made it took
    entries: list[Entry] = field(default_factory=list)  # in the order the examples ran
    failures: bytes = b""  # the pickled "import failed" reports
    blobs_start: int = 0  # where the cases' large tensors begin, from data_start (case_pickle.py)
    data_start: int = 0  # where the reports' bytes begin in the file (set when read)
    library_source: str = ""  # the library's source digest when it is not in the key (docstring examples)
    suite: Any = None  # a test suite's: what each of its test files depends on (suite_records.SuiteRecords)
    # how many storages the blobs hold as bytes and as module recipes, and their bytes (BlobIndex.summary)
    storages: dict[str, int] = field(default_factory=dict)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:80]


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


class DiscoveryCache:
    """The cache file of one package and argument set."""

    def size(self) -> str:
        """The file's size in words ("227.3 MB"; "3.2 MB, and 1504.5 MB of weights built again when loaded"),
        or that it is not there (a cache that could not be written)."""
        try:
            size = megabytes(self.path.stat().st_size)
        except OSError:
            return "not written"
        rebuilt = self.storages.get("rebuilt_bytes", 0)
        return f"{size}, and {megabytes(rebuilt)} of weights built again when loaded" if rebuilt else size

    def __init__(self, directory: Path, key: dict[str, Any], library_source: str = ""):
        self.directory = directory
        self.key = key
        self.library_source = library_source  # when it is kept in the file, not in the key
        arguments = {k: key[k] for k in ARGUMENTS if k in key}
        self.stem = f"{_safe(key['package'])}-{_digest(arguments)[:12]}"
        self.path = directory / f"{self.stem}-{_digest(key)[:20]}.pickle"
        self.unused = ""  # why the file stored for these arguments was not used (load sets it)
        self.storages: dict[str, int] = {}  # what the file's blobs hold (Stored.storages), once saved or loaded

    @classmethod
    def open(cls, package: str, include: list[str], exclude: list[str], time_limit: float,
             entry: str = "docstrings/docstrings.py", extra: dict[str, Any] | None = None,
             per_example: bool = False) -> DiscoveryCache | None:
        """The cache for these arguments; None when caching is off or the library's source cannot be found.
        ``extra``: more of the key (the tests' path and sources, for the cases recorded from the tests).
        ``per_example``: the library's source goes in the file, not the key (each entry says what it ran)."""
        directory = cache_dir()
        if directory is None:
            return None
        key = cache_key(package, include, exclude, time_limit, entry)
        if key is None:
            return None
        if per_example:
            return cls(directory, {k: v for k, v in dict(key, **(extra or {})).items() if k != "library_source"},
                       key["library_source"])
        return cls(directory, dict(key, **(extra or {})))

    def load(self) -> Stored | None:
        """The stored discovery's header, or None when there is none for this key (or it cannot be read);
        then :attr:`unused` says why a file stored for these arguments is not used ("" when there is none)."""
        self.unused = ""
        try:
            stored, size = _read_header(self.path)
        except FileNotFoundError:
            self.unused = _replaced(self)
            return None
        except Exception as exc:  # a damaged or foreign file is rebuilt, not trusted
            self.unused = f"{self.path.name} could not be read ({type(exc).__name__}: {exc}), so it is made again"
            return None
        if not isinstance(stored, Stored) or stored.key != self.key:
            self.unused = f"{self.path.name} holds another discovery, so it is made again"
            return None
        stored.data_start = len(MAGIC) + 8 + size
        self.storages = stored.storages
        return stored

    def said_unused(self) -> str:
        """"; " and why the file stored for these arguments was not used, for a note ("" when none was)."""
        return f"; {self.unused}" if self.unused else ""

    def load_report(self, stored: Stored, entry: Entry, only: str | None = None) -> Any:
        """The report of ``entry`` with all its cases, or with the case named ``only`` alone (OSError when the
        file is gone or ends before them). Each pickle is unpickled from the file as it is read, and each
        large tensor read straight into its storage (case_pickle.py): a 1.5 GB model's bytes are never held
        beside the tensors they become."""
        cases = [(offset, length) for name, offset, length in entry.cases if only is None or name == only]
        with open(self.path, "rb") as handle, open(self.path, "rb") as blobs:
            end = max([entry.offset + entry.length] + [offset + length for offset, length in cases])
            if handle.seek(0, os.SEEK_END) < stored.data_start + end:
                raise OSError(f"{self.path} ends before the report of {entry.name}")
            handle.seek(stored.data_start + entry.offset)
            report = pickle.load(handle)
            report.cases = []
            loaded: dict[Any, Any] = {}  # the storages the example's cases share are read (or built) once
            for offset, _ in cases:
                handle.seek(stored.data_start + offset)
                report.cases.append(CaseUnpickler(handle, blobs, stored.data_start + stored.blobs_start,
                                                  loaded=loaded).load())
        return report

    def save(self, reports: list[Any], failures: list[Any], seconds: float,
             base_name: Callable[[Any], str], suite: Any = None) -> int:
        """Store the reports (in run order); returns how many will run again on load (they do not pickle).

        A cache that cannot be written (read-only home, full disk) is skipped:
        discovery's result does not depend on it.
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # the reports' pickles go to a body file as they are made, never held in memory all at once
            # (kornia.models' are 2 GB); the cache file is then the header followed by that body
            with tempfile.TemporaryFile(dir=self.directory) as body, \
                    tempfile.TemporaryFile(dir=self.directory) as blobs:
                shared = BlobIndex()  # a storage's content is written once in the file
                entries = [_write_report(body, blobs, report, base_name, shared) for report in reports]
                stored = Stored(self.key, time.time(), seconds, entries,
                                pickle.dumps(failures, protocol=pickle.HIGHEST_PROTOCOL),
                                blobs_start=body.seek(0, os.SEEK_END), library_source=self.library_source,
                                suite=suite, storages=shared.summary())
                self.storages = stored.storages
                header = pickle.dumps(stored, protocol=pickle.HIGHEST_PROTOCOL)
                handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=self.stem + ".", suffix=".tmp")
                try:
                    with os.fdopen(handle, "wb") as out:
                        out.write(MAGIC + len(header).to_bytes(8, "little") + header)
                        for part in (body, blobs):
                            part.seek(0)
                            shutil.copyfileobj(part, out, 1 << 20)  # a small buffer: no 16 MB bytes objects
                    os.replace(temporary, self.path)  # readers (the probe's workers) see a whole file or none
                except BaseException:
                    os.unlink(temporary)
                    raise
            for old in self.directory.glob(f"{self.stem}-*.pickle"):
                if old != self.path:
                    old.unlink(missing_ok=True)  # the same package and arguments under an older key
        except OSError:
            return 0
        return sum(1 for entry in entries if not entry.stored)


def _read_header(path: Path) -> tuple[Any, int]:
    """A cache file's header and its length; ValueError when the file is of another format."""
    with open(path, "rb") as handle:
        magic = handle.read(len(MAGIC))
        if magic != MAGIC:
            raise ValueError(f"another format of the cache ({magic[-2:].decode(errors='replace')}, this probe writes "
                             f"{MAGIC[-2:].decode()})")
        size = int.from_bytes(handle.read(8), "little")
        return pickle.loads(handle.read(size)), size


# what differs between two keys, said to people
_KEY_PARTS = {"format": "the cache's format", "discovery_code": "the probe's discovery code",
              "library_source": "the library's source"}


def _replaced(store: DiscoveryCache) -> str:
    """Why the file of these arguments under an older key is not used (the next save replaces it); "" if none."""
    older = sorted(path for path in store.directory.glob(f"{store.stem}-*.pickle") if path != store.path)
    if not older:
        return ""
    try:
        stored, _ = _read_header(older[-1])
        key = stored.key
    except Exception as exc:  # an older format, or damaged: said as such
        return f"{older[-1].name} is not used: {exc}; it is made again"
    parts = [_KEY_PARTS.get(name, name) + (f" ({key.get(name)} -> {store.key.get(name)})" if name == "format" else "")
             for name in sorted(set(key) | set(store.key)) if name != "versions" and key.get(name) != store.key.get(name)]
    versions, now = key.get("versions", {}), store.key.get("versions", {})
    parts += [f"{name} {versions.get(name)} -> {now.get(name)}" for name in sorted(set(versions) | set(now))
              if versions.get(name) != now.get(name)]
    return f"{older[-1].name} is not used: its key differs in {', '.join(parts) or 'nothing said'}; it is made again"


_LAST_STORED: dict[Path, Stored] = {}


def last_stored(store: DiscoveryCache | None) -> Stored | None:
    """The store's header, read once for the cases of one package in a row (a worker gets them one by one)."""
    if store is None:
        return None
    if store.path not in _LAST_STORED:
        _LAST_STORED.clear()  # one package's file at a time
        stored = store.load()
        if stored is None:
            return None
        _LAST_STORED[store.path] = stored
    return _LAST_STORED[store.path]


def _definition(spec: Any) -> str:
    """What the fingerprint covers, plus where the case is listed and its repro."""
    from ..cases.fingerprint import case_definition

    return json.dumps([case_definition(spec), spec.name, spec.ref, spec.package, spec.section, spec.code],
                      sort_keys=True, default=str)


def _write_report(body: Any, blobs: Any, report: Any, base_name: Callable[[Any], str], shared: BlobIndex) -> Entry:
    """Append ``report`` to ``body`` (the report without its cases, then each case, their large tensors to
    ``blobs``) and say where it lies; each case is unpickled once from the file to check it gives the same
    fingerprint, name and code. One that does not pickle (a closure, a lambda baked into a call) or does not
    come back equal (a class whose pickling drops state) is cut off again: the entry says its example runs
    again on load."""
    start, blobs_start = body.seek(0, os.SEEK_END), blobs.seek(0, os.SEEK_END)
    # a docstring example's report says what its example ran; a test's (suite.py) does not
    example, code = getattr(report, "example", ""), getattr(report, "code", None)
    # a test's report may end with calls its selection did not keep (suite.py): no case of the run, no name
    kept = len(report.cases) - getattr(report, "unkept", 0)
    entry = Entry(report.ref, [base_name(spec) for spec in report.cases[:kept]], start, example=example, code=code)
    shared.next_example()
    try:
        pickle.dump(dataclasses.replace(report, cases=[]), body, protocol=pickle.HIGHEST_PROTOCOL)
        entry.length = body.tell() - start
        for place, spec in enumerate(report.cases):
            offset = body.tell()
            pickler = CasePickler(body, blobs, shared)
            pickler.dump(spec)
            end = body.tell()
            body.seek(offset)
            # the check rebuilds the case on the storages it was pickled from: no copy of its weights
            again = CaseUnpickler(body, None, originals=pickler.storages).load()
            same = _definition(again) == _definition(spec)
            del again, pickler
            if not same:
                raise ValueError(f"{spec.name} does not come back equal from pickle")
            entry.cases.append((spec.name if place < kept else None, offset, end - offset))
            body.seek(end)
    except Exception:
        body.seek(start)
        body.truncate()
        blobs.seek(blobs_start)
        blobs.truncate()
        shared.forget_from(blobs_start)
        return Entry(report.ref, entry.bases, example=example, code=code)
    return entry
