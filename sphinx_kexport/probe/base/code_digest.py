"""Digests of the Python code a case runs, function by function, blind to what cannot change behaviour.

A case's record names the code it ran as ``{ref: digest}`` (:mod:`..measure.code_watch` finds it). A ref is a
file and, after ``::``, one of:

- a function (``kornia/filters/gaussian.py::gaussian_blur2d``,
  ``kornia/augmentation/base.py::_BasicAugmentationBase.forward``): its whole ``def`` (signature, decorators,
  defaults, nested functions and lambdas included), so adding a function to a file moves no other ref of it;
- ``global NAME ...``: the top-level statements that bind the names those functions read (an import, a
  constant, a class with its attributes), and through them the names those statements read (``B = 2 * A``
  makes ``A`` count for a reader of ``B``); a method reads its class, whose digest holds the names of its
  methods (one added may override one that ran); a name a ``def`` binds digests as that name alone (the
  function has its own ref when it runs). One ref names them all (``global EPS SCALE torch``). Adding an
  import or a constant that the functions do not read moves none of their refs;
  A statement that changes a name in place counts as binding it (``CASES.append(...)``, ``Box.extra = 1``,
  ``torch.set_default_dtype(...)``);
- ``<statements>``: the file's other top-level statements that bind no name (a bare call such as
  ``register(fn)``, a loop, a star import): any of them may change what a function finds, so every function
  of the file depends on them.

A function that reads ``globals()`` or ``vars()`` depends on every name of its file. A ref without ``::`` is
the file's whole top level (every function left out): records of earlier probes name it, and it is checked
as it always was.

Digests are of the syntax tree, not the text: comments, docstrings, blank lines and formatting do not move
them. A ref whose file or function is gone digests as :data:`GONE`, so it never equals a recorded digest.

Files of the surveyed library are named from the library's import root (``kornia/...``); any other file (a
case module, its helpers, a test) from the project's root, with a leading ``./`` (``./example_docs/cases/x.py``,
``./../lib/tests/test_x.py``): the refs read the same on every machine that has the same layout.
Standard library only: the probe's parent checks what a rerun may reuse without importing torch.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Iterable

GONE = "gone"  # the digest of a ref whose file or function no longer exists
PROJECT = "./"  # what a ref to a file outside the library starts with
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _combined(digests: list[str]) -> str:
    return hashlib.sha256(" ".join(digests).encode()).hexdigest()[:16]


def _digest(node: ast.AST) -> str:
    return hashlib.sha256(ast.dump(node, annotate_fields=False).encode()).hexdigest()[:16]


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


class _TopLevel(ast.NodeTransformer):
    """The file without its functions and docstrings: what changes when an import, a constant or a class
    attribute does (each function, its signature included, has its own digest)."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        return None

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = _without_docstring(node.body)
        self.generic_visit(node)
        node.body = node.body or [ast.Pass()]
        return node


class _StripDocstrings(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = _without_docstring(node.body) or [ast.Pass()]
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]
    visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]


GLOBAL = "global "  # a ref's part after ``::`` for the top-level names read: ``global EPS torch``
STATEMENTS = "<statements>"  # ... and for the top-level statements that bind no name
_READS_EVERYTHING = "*"  # what a function that calls globals() or vars() reads


@dataclass
class FileDigests:
    """One source file's digests and which function each of its lines belongs to."""

    top: str  # the top level's digest
    functions: dict[str, str] = field(default_factory=dict)  # qualname -> digest (all defs of that name)
    # sorted (first body line, last line, qualname) of each outermost function: what is nested in it belongs to it
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # top-level name -> digest of what binds it (defs aside)
    name_reads: dict[str, list[str]] = field(default_factory=dict)  # name -> the names its statements read
    statements: str = ""  # digest of the top-level statements that bind no name ("": none)
    reads: dict[str, list[str]] = field(default_factory=dict)  # outermost function -> the names it reads

    def globals_of(self, functions: Iterable[str]) -> dict[str, str]:
        """``{part: digest}`` of the top level that ``functions`` (qualnames of this file) depend on: each
        name they read, directly or through what binds it (``global NAME``), and :data:`STATEMENTS`."""
        wanted: set[str] = set()
        for function in functions:
            wanted.update(self.reads.get(function, ()))
        if _READS_EVERYTHING in wanted:
            wanted = set(self.names)
        found: dict[str, str] = {}
        todo = sorted(wanted)
        while todo:
            name = todo.pop()
            if name in found or name not in self.names:
                continue  # a builtin, or a local that shadows nothing
            found[name] = self.names[name]
            todo.extend(self.name_reads.get(name, ()))
        # one ref for the whole set (a record names a file's names once, not one ref each: that tripled the
        # snapshot's code table); the set is in the ref, so refs of two sets of one file never collide
        parts = {GLOBAL + " ".join(sorted(found)): _combined([found[n] for n in sorted(found)])} if found else {}
        if self.statements:
            parts[STATEMENTS] = self.statements
        return parts

    def part(self, part: str) -> str:
        """The digest of one part of a ref (after ``::``) as the file is now, :data:`GONE` when it is gone."""
        if part.startswith(GLOBAL):
            digests = [self.names.get(name, GONE) for name in part[len(GLOBAL):].split()]
            return GONE if GONE in digests else _combined(digests)
        if part == STATEMENTS:
            return self.statements or GONE
        return self.functions.get(part, GONE)

    def function_at(self, line: int) -> str | None:
        """The qualname of the outermost function whose body holds ``line`` (None: the top level)."""
        # spans of outermost functions never overlap (one function nested in another is part of it)
        i = bisect.bisect_right(self.spans, (line, float("inf"), "")) - 1
        if i >= 0 and self.spans[i][0] <= line <= self.spans[i][1]:
            return self.spans[i][2]
        return None

    def function_named(self, qualname: str) -> str | None:
        """The outermost function a code object's ``co_qualname`` belongs to (``f.<locals>.g`` is ``f``'s), or
        None when it is the top level (``<module>``, a class body)."""
        outer = qualname.split(".<locals>", 1)[0]
        return outer if outer in self.functions else None


def _functions(body: list[ast.stmt], prefix: str) -> Iterable[tuple[str, ast.AST]]:
    """(qualname, def) of each function that is not nested in another function, through classes and the
    branches of ``if``/``try``/``with`` at the top level (a def under ``if TYPE_CHECKING:`` or ``try:``)."""
    for node in body:
        if isinstance(node, _FUNCTIONS):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.If, ast.Try, ast.With)) or type(node).__name__ == "TryStar":
            for branch in ("body", "orelse", "finalbody"):
                yield from _functions(getattr(node, branch, []) or [], prefix)
            for handler in getattr(node, "handlers", []):
                yield from _functions(handler.body, prefix)


def _loads(node: ast.AST) -> set[str]:
    """The names ``node`` reads (a local that shadows a global too: counting it costs a spare dependency)."""
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {_READS_EVERYTHING} if found & {"globals", "vars"} else found


def _stores(node: ast.AST) -> set[str]:
    """The top-level names a statement binds (not the locals of the functions and classes in it)."""
    found: set[str] = set()

    def visit(n: ast.AST) -> None:
        if isinstance(n, (*_FUNCTIONS, ast.ClassDef)):
            found.add(n.name)
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            found.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
        elif isinstance(n, ast.Lambda):
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


def _binds_only(node: ast.stmt) -> bool:
    """Whether a top-level statement only binds names (an import, ``X = ...`` to plain names, a class, an
    ``if``/``try`` of those), so that it matters only to the functions that read them."""
    if isinstance(node, (ast.Import, ast.ClassDef, *_FUNCTIONS, ast.Pass)):
        return True
    if isinstance(node, ast.ImportFrom):
        return all(a.name != "*" for a in node.names)
    if isinstance(node, ast.Assign):
        plain = (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.expr_context)  # not x.attr = or x[i] =
        return all(isinstance(part, plain) for target in node.targets for part in ast.walk(target))
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return isinstance(node.target, ast.Name)
    if isinstance(node, ast.If):
        return all(_binds_only(s) for s in [*node.body, *node.orelse])
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        handlers = [s for h in node.handlers for s in h.body]  # type: ignore[attr-defined]
        return all(_binds_only(s) for s in [*node.body, *handlers, *node.orelse, *node.finalbody])  # type: ignore[attr-defined]
    return False


def _root(node: ast.expr) -> str | None:
    """``X`` of ``X.a.b``, ``X[i]`` or ``X.a[i].b``: the top-level name such an expression starts from."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _mutated(node: ast.stmt) -> str | None:
    """The one name a statement changes in place: ``CASES.append(...)``, ``Box.extra = 1``,
    ``REGISTRY["a"] = f``, ``torch.set_default_dtype(...)`` (it counts for the readers of that name)."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
        return _root(node.value.func)
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
    roots = {_root(t) if isinstance(t, (ast.Attribute, ast.Subscript)) else None for t in targets}
    return roots.pop() if len(roots) == 1 else None


_DEFINED = "def"  # what a plain ``def`` at the top level adds to its name's digest


def _members(node: ast.ClassDef, prefix: str = "") -> list[str]:
    """The names of the functions a class defines, its nested classes' too (``Inner.method``)."""
    found = []
    for child in node.body:
        if isinstance(child, _FUNCTIONS):
            found.append(prefix + child.name)
        elif isinstance(child, ast.ClassDef):
            found.extend(_members(child, f"{prefix}{child.name}."))
    return found


def _bindings(facts: list[tuple[ast.stmt, set[str], bool, str | None, list[str]]]
              ) -> tuple[dict[str, str], dict[str, list[str]], str]:
    """(name -> digest, name -> names read, digest of the statements that bind nothing) of a file's top level,
    from each statement (its functions already stripped: they have refs of their own), the names it binds,
    whether it only binds, the name it changes in place, and for a class the names of its methods.

    An import binds each of its names on its own (adding a name to ``from x import a`` moves no reader of
    ``a``); a plain ``def`` binds its name as :data:`_DEFINED` (its body is its own ref); a statement that changes
    one name in place (:func:`_mutated`) counts for that name; any other statement that may do more than bind
    (a bare call, a loop, a star import) counts for every function, and for the names it binds."""
    digests: dict[str, list[str]] = {}
    reads: dict[str, set[str]] = {}
    effects: list[str] = []
    for node, stores, binds_only, mutated, members in facts:
        if isinstance(node, _FUNCTIONS):
            # the name only: a function that runs has its own ref, one that does not cannot matter; but a def that
            # rebinds an imported name, or one removed, moves its readers
            digests.setdefault(node.name, []).append(_DEFINED)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and binds_only:
            for alias in node.names:
                one = ast.Import(names=[alias]) if isinstance(node, ast.Import) else \
                    ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                digests.setdefault((alias.asname or alias.name).split(".")[0], []).append(_digest(one))
            continue
        digest = _digest(node)
        if isinstance(node, ast.ClassDef):  # its methods' names too: a method added may override one that ran
            digest = _combined([digest, *members])
        if not binds_only and mutated is None:
            effects.append(digest)
        read = _loads(node)
        for name in stores | ({mutated} if mutated else set()):
            digests.setdefault(name, []).append(digest)
            reads.setdefault(name, set()).update(read - {name})
    names = {name: parts[0] if len(parts) == 1 else hashlib.sha256("".join(parts).encode()).hexdigest()[:16]
             for name, parts in digests.items()}
    statements = hashlib.sha256("".join(effects).encode()).hexdigest()[:16] if effects else ""
    return names, {name: sorted(read) for name, read in reads.items()}, statements


def file_digests(source: str) -> FileDigests:
    """The digests of one file's source text; a file that does not parse digests as one opaque text.
    (What a digest covers changes only with :data:`STORE_FORMAT`, or the stores of earlier runs lie.)"""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return FileDigests(top=hashlib.sha256(source.encode()).hexdigest()[:16])
    parts: dict[str, list[str]] = {}
    spans = []
    reads: dict[str, set[str]] = {}
    for qualname, node in _functions(tree.body, ""):
        # from its body's first line: the def line runs when the function is defined (at import), not called
        spans.append((node.body[0].lineno, node.end_lineno or node.lineno, qualname))
        read = reads.setdefault(qualname, set())
        read.update(_loads(node))
        if "." in qualname:  # a method: its class's attributes and bases
            read.add(qualname.split(".", 1)[0])
        parts.setdefault(qualname, []).append(_digest(_StripDocstrings().visit(node)))
    tree.body = _without_docstring(tree.body)
    facts = [(node, _stores(node), _binds_only(node), _mutated(node),
              _members(node) if isinstance(node, ast.ClassDef) else []) for node in tree.body]
    top = _digest(_TopLevel().visit(tree))  # strips the functions in place: the statements of ``facts`` too
    names, name_reads, statements = _bindings(facts)
    functions = {name: digests[0] if len(digests) == 1 else hashlib.sha256("".join(digests).encode()).hexdigest()[:16]
                 for name, digests in parts.items()}
    return FileDigests(top=top, functions=functions, spans=sorted(spans), names=names, name_reads=name_reads,
                       statements=statements, reads={name: sorted(read) for name, read in reads.items()})


class SourceDigests:
    """Digests of the files one process reads, each parsed once (again when the file changes).

    With a ``store`` (a file), what earlier runs parsed is kept by the digest of each file's bytes: a rerun
    reads and hashes every file it checks (milliseconds) but parses only the ones that changed (parsing
    kornia's 414 files and digesting their 3,246 functions took 4.3 s of a 12.7 s rerun)."""

    def __init__(self, store: str | None = None) -> None:
        self._files: dict[str, tuple[tuple[int, int], FileDigests | None]] = {}
        self._store_path = store
        self._stored: dict[str, FileDigests] = _load_store(store) if store else {}
        self._used: dict[str, FileDigests] = {}

    def of_file(self, path: str) -> FileDigests | None:
        """``path``'s digests, or None when it cannot be read."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        known = self._files.get(path)
        if known is not None and known[0] == key:
            return known[1]
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError:
            self._files[path] = (key, None)
            return None
        content = hashlib.sha256(raw).hexdigest()
        digests = self._stored.get(content)
        if digests is None:
            digests = file_digests(raw.decode("utf-8", errors="surrogateescape"))
        self._used[content] = digests
        self._files[path] = (key, digests)
        return digests

    def save(self) -> None:
        """Keep what this run read for the next one (only that: the store does not grow with old versions);
        a store that cannot be written is skipped."""
        if not self._store_path or not self._used:
            return
        data = {content: [d.top, d.functions, [list(span) for span in d.spans], d.names, d.name_reads, d.statements,
                          d.reads] for content, d in self._used.items()}
        temporary = f"{self._store_path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self._store_path) or ".", exist_ok=True)
            with open(temporary, "w", encoding="utf-8") as fh:
                json.dump({"format": STORE_FORMAT, "files": data}, fh)
            os.replace(temporary, self._store_path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


STORE_FORMAT = 2  # bump when what a digest covers changes: a store of another format is ignored
# (2: the names each function reads and what binds them)


def _load_store(path: str) -> dict[str, FileDigests]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("format") != STORE_FORMAT:
            return {}
        return {content: FileDigests(top, dict(functions), [tuple(span) for span in spans], dict(names),
                                     dict(name_reads), statements, dict(reads))
                for content, (top, functions, spans, names, name_reads, statements, reads) in data["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # absent, damaged or foreign: parsed again


@dataclass(frozen=True)
class CodePlaces:
    """Where the refs of one survey point: the surveyed library's package folder and the project's root."""

    library: str = ""  # import name ("kornia"; "" when the survey names none)
    library_dir: str = ""  # the package's folder (``.../kornia``)
    root: str = "."  # the project: the folder of its pyproject.toml

    def ref_for(self, path: str) -> str:
        """The file ref of ``path`` (absolute)."""
        path = os.path.realpath(path)
        if self.library_dir and (path == self.library_dir or path.startswith(self.library_dir + os.sep)):
            inner = os.path.relpath(path, self.library_dir)
            return f"{self.library}/{inner}".replace(os.sep, "/")
        return PROJECT + os.path.relpath(path, os.path.realpath(self.root)).replace(os.sep, "/")

    def path_for(self, ref: str) -> str | None:
        """The file a ref names here, or None when it names the library and none is set."""
        file = ref.split("::", 1)[0]
        if file.startswith(PROJECT):
            return os.path.normpath(os.path.join(self.root, file[len(PROJECT):]))
        name, _, inner = file.partition("/")
        if not self.library_dir or name != self.library:
            return None
        return os.path.join(self.library_dir, inner)


class CodeCheck:
    """Whether recorded code is still the code there is: which refs now digest differently."""

    def __init__(self, places: CodePlaces, digests: SourceDigests | None = None):
        self.places = places
        self.digests = digests or SourceDigests()

    def current(self, ref: str) -> str:
        path = self.places.path_for(ref)
        found = self.digests.of_file(path) if path else None
        if found is None:
            return GONE
        _, _, part = ref.partition("::")
        return found.part(part) if part else found.top

    def changed(self, code: dict[str, str]) -> list[str]:
        """The refs of ``code`` whose digest is not the recorded one, in order."""
        return [ref for ref, digest in sorted(code.items()) if self.current(ref) != digest]


def code_set_id(code: dict[str, str]) -> str:
    """The name of one case's set of refs and digests in the snapshot's ``code`` table: a digest of the set,
    so cases that ran the same code share one entry, and a set is never changed in place."""
    text = "\n".join(f"{ref} {digest}" for ref, digest in sorted(code.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
