"""Find ``where``: the deepest frame inside the surveyed library, as ``pkg/sub/file.py:123``.

A frame belongs to the library when its file lies under the library's package
directory (found from the imported package, not from a checkout folder name),
so an installed copy, an editable checkout and a Windows path all work.
Frames come from tracebacks, from the "File "...", line N" lines dynamo and
faulthandler write into their messages, and from dynamo's break user stacks.
"""

from __future__ import annotations

import importlib.util
import os
import re
import traceback
from dataclasses import dataclass

from .explain import exception_chain

_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass(frozen=True)
class LibraryRoot:
    """Where the surveyed library lives on disk."""

    name: str
    directory: str  # the package directory (or the module file for a single-module library)
    base: str  # what ``where`` paths are relative to: the directory holding the package

    def owns(self, filename: str) -> bool:
        if not self.directory or not filename:
            return False
        path = os.path.realpath(filename)
        return path == self.directory or path.startswith(self.directory + os.sep)

    def label(self, filename: str, lineno: int) -> str:
        rel = os.path.relpath(os.path.realpath(filename), self.base)
        return f"{rel.replace(os.sep, '/')}:{lineno}"


NO_LIBRARY = LibraryRoot("", "", "")


def library_root(name: str) -> LibraryRoot:
    """Locate an importable package by name; ``NO_LIBRARY`` when it cannot be found."""
    if not name:
        return NO_LIBRARY
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return NO_LIBRARY
    if spec is None:
        return NO_LIBRARY
    if spec.submodule_search_locations:
        directory = os.path.realpath(list(spec.submodule_search_locations)[0])
    elif spec.origin and os.path.exists(spec.origin):
        directory = os.path.realpath(spec.origin)
    else:
        return NO_LIBRARY
    return LibraryRoot(name, directory, os.path.dirname(directory))


def _node_frames(exc: BaseException) -> list[tuple[str, int]]:
    """User frames of the graph node being translated when ``exc`` was raised.

    A missing ONNX lowering fails far from user code, but the exporter's
    frame holds the FX ``node``, whose ``stack_trace`` names the line that
    called the operator.
    """
    frames: list[tuple[str, int]] = []
    tb = exc.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node")
        meta = getattr(node, "meta", None)
        trace = meta.get("stack_trace") if isinstance(meta, dict) else None
        if isinstance(trace, str):
            frames = [(m.group(1), int(m.group(2))) for m in _FILE_LINE.finditer(trace)]
        tb = tb.tb_next
    return frames


def _frames_of(exc: BaseException) -> list[tuple[str, int]]:
    frames = [(f.filename, f.lineno or 0) for f in traceback.extract_tb(exc.__traceback__)]
    # dynamo's Unsupported carries the user stack it was tracing (outer to inner)
    frames += [(f.filename, f.lineno or 0) for f in getattr(exc, "real_stack", None) or []]
    # dynamo and faulthandler name user frames in the message text, outer to inner
    frames += [(m.group(1), int(m.group(2))) for m in _FILE_LINE.finditer(str(exc))]
    return frames + _node_frames(exc)


def deepest_frame(frames: list[tuple[str, int]], root: LibraryRoot) -> str:
    """The last (innermost) frame of ``frames`` inside the library, or ""."""
    for filename, lineno in reversed(frames):
        if root.owns(filename):
            return root.label(filename, lineno)
    return ""


def where_exception(exc: BaseException, root: LibraryRoot) -> str:
    """The deepest library frame of the deepest exception in the chain that has one."""
    if root is NO_LIBRARY:
        return ""
    for cause in reversed(exception_chain(exc)):
        found = deepest_frame(_frames_of(cause), root)
        if found:
            return found
    return ""


def where_text(text: str, root: LibraryRoot, innermost_first: bool = False) -> str:
    """The deepest library frame named in free text (a faulthandler dump lists innermost first)."""
    frames = [(m.group(1), int(m.group(2))) for m in _FILE_LINE.finditer(text)]
    if innermost_first:
        frames.reverse()
    return deepest_frame(frames, root)
