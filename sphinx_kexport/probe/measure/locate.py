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
from typing import Any, Callable

from .explain import exception_chain

FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


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


def failing_node(exc: BaseException) -> Any:
    """The FX graph node being translated when ``exc`` was raised (the innermost frame holding a ``node``
    with a ``meta`` dict), or None."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node")
        if isinstance(getattr(node, "meta", None), dict):
            found = node
        tb = tb.tb_next
    return found


def _trace_frames(node: Any) -> list[tuple[str, int]]:
    trace = node.meta.get("stack_trace") if node is not None else None
    return [(m.group(1), int(m.group(2))) for m in FILE_LINE.finditer(trace)] if isinstance(trace, str) else []


def _node_frames(exc: BaseException) -> list[tuple[str, int]]:
    """User frames of the graph node being translated when ``exc`` was raised.

    A missing ONNX lowering fails far from user code, but the exporter's
    frame holds the FX ``node``, whose ``stack_trace`` names the line that
    called the operator: as far as the trace goes (see :func:`where_call`).
    """
    return _trace_frames(failing_node(exc))


MAX_RECORDED_CALLS = 64


def _operator_calls(packet: Any, stacks: list[list[tuple[str, int]]]) -> Any:
    """A dispatch mode that appends the Python stack of every eager call of one aten operator (any
    overload) to ``stacks``. Made on use: the parent process imports this module without torch."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class OperatorCalls(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            # the first calls are enough (an operator called in a loop must not cost a stack per call)
            if getattr(func, "overloadpacket", None) is packet and len(stacks) < MAX_RECORDED_CALLS:
                stacks.append([(f.filename, f.lineno or 0) for f in traceback.extract_stack()[:-1]])
            return func(*args, **(kwargs or {}))

    return OperatorCalls()


def where_call(exc: BaseException, root: LibraryRoot, replay: Callable[[], Any]) -> str:
    """The library frame that called the operator of the node that failed to translate, or "".

    torch.export's non-strict trace (the ONNX exporter's first try) keeps only the ``forward`` frames
    in a node's ``stack_trace`` (torch 2.13), so a helper function's line is lost: piq's KID reported
    ``base.py`` (``forward``) for a ``torch.randperm`` called in ``kid.py``. ``replay`` runs the case
    eagerly once more while the operator's calls are recorded; the first call whose stack passes through
    the node's innermost traced library frame is the node's, and its deepest library frame is the answer."""
    node = next((n for n in map(failing_node, reversed(exception_chain(exc))) if n is not None), None)
    packet = getattr(getattr(node, "target", None), "overloadpacket", None)
    anchor = deepest_frame(_trace_frames(node), root)
    if packet is None or not anchor or root is NO_LIBRARY:
        return ""
    stacks: list[list[tuple[str, int]]] = []
    try:
        with _operator_calls(packet, stacks):
            replay()
    except Exception:  # the replay is only a way to find the line: the node's own trace stands
        return ""
    for stack in stacks:
        if anchor in (root.label(f, line) for f, line in stack if root.owns(f)):
            return deepest_frame(stack, root)
    return ""


def _frames_of(exc: BaseException) -> list[tuple[str, int]]:
    frames = [(f.filename, f.lineno or 0) for f in traceback.extract_tb(exc.__traceback__)]
    # dynamo's Unsupported carries the user stack it was tracing (outer to inner)
    frames += [(f.filename, f.lineno or 0) for f in getattr(exc, "real_stack", None) or []]
    # dynamo and faulthandler name user frames in the message text, outer to inner
    frames += [(m.group(1), int(m.group(2))) for m in FILE_LINE.finditer(str(exc))]
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
    frames = [(m.group(1), int(m.group(2))) for m in FILE_LINE.finditer(text)]
    if innermost_first:
        frames.reverse()
    return deepest_frame(frames, root)
