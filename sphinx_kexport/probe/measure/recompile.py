"""Why torch.compile compiled a function again at another batch size, in words.

dynamo's ``RecompileError`` (torch 2.13) names the function it compiles again
and the guards that failed, one per cached compile::

    Recompiling function torch_dynamo_resume_in_f_at_43 in /home/me/lib/pkg/f.py:43
        triggered by the following guard failure(s):
        - 3/0: tensor 'y' size mismatch at index 0. expected 2, actual 3

or, for a Python int that was compiled as a constant::

        - 3/0: n == 2          # z = torch.zeros(n, 1, 1)  # me/lib/pkg/f.py:44 in torch_dynamo_resume_in_f_at_43
        - User stack trace:
        -   File "/home/me/lib/pkg/f.py", line 44, in torch_dynamo_resume_in_f_at_43

The raw text varies with every variable name and source line, carries the
machine's paths (dynamo cuts the one in a guard's comment to its last
characters) and so split one cause into several reason-index entries. The
probe says instead which value was guarded, the library line that set the
guard and, for code resumed after a graph break, where that break is; a path
is shown only relative to the library, never the machine's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .explain import clean_line
from .locate import LibraryRoot, where_text

_HEADER = re.compile(r"Recompiling function (?P<function>\S+) in (?P<file>.+):(?P<line>\d+)\s*$", re.M)
_GUARD = re.compile(r"^\s*-\s*\d+/\d+:\s*(?P<text>.+)$", re.M)  # "- 3/0: ..." (frame / compile id)
_GUARD_COMMENT = re.compile(r"^(?P<expr>.*?)\s+#\s(?P<code>.*?)\s+#\s(?P<path>\S+):(?P<line>\d+) in \w+\s*$")
_TENSOR_SIZE = re.compile(r"^tensor '(?P<name>[^']+)' size mismatch at index (?P<dim>\d+)\. "
                          r"expected (?P<expected>\d+)")
_CONSTANT = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(?:\[[^\]]*\])*) == (?P<value>-?\d+)$")
_LOCAL = re.compile(r"\b[LG]\['([^']+)'\]")  # dynamo's name for a local or global: L['x'] -> x
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>\w+)_at_\d+$")


@dataclass(frozen=True)
class FailedGuard:
    """The first guard that failed when dynamo compiled ``function`` again."""

    function: str  # the code object compiled again (a resume function after a graph break, or the case's)
    function_where: str  # its first line within the library ("" outside it): for a resume function, the break
    guard: str  # the guard's expression, dynamo's comment cut off
    code: str  # the source line that set the guard, "" when dynamo names none
    where: str  # that line within the library, "" when none or outside it


def failed_guard(message: str, root: LibraryRoot) -> FailedGuard | None:
    """The recompiled function and its first failed guard, read from a ``RecompileError``'s message."""
    header, guard = _HEADER.search(message), _GUARD.search(message)
    if header is None or guard is None:
        return None
    function_where = _library_label(header["file"], int(header["line"]), root)
    text = _LOCAL.sub(r"\1", guard["text"].strip())
    comment = _GUARD_COMMENT.match(text)
    if comment is None:
        return FailedGuard(header["function"], function_where, text.split("  #")[0].strip(), "", "")
    following = _GUARD.search(message, guard.end())  # this guard's user stack ends at the next guard
    block = message[guard.start():following.start() if following else len(message)]
    where = where_text(block, root) or _library_label(comment["path"], int(comment["line"]), root)
    return FailedGuard(header["function"], function_where, comment["expr"].strip(), comment["code"].strip(), where)


def _library_label(path: str, line: int, root: LibraryRoot) -> str:
    """``pkg/file.py:line`` for a path inside the library, also one dynamo cut to its last characters
    ("me/lib/pkg/f.py": the longest tail that names a file of the library); "" for any other path."""
    if root.owns(path):
        return root.label(path, line)
    parts = path.replace("\\", "/").split("/")
    for start in range(len(parts)):
        candidate = os.path.join(root.base, *parts[start:])
        if root.owns(candidate) and os.path.isfile(candidate):
            return root.label(candidate, line)
    return ""


def _without_comment(line: str) -> str:
    """A source line without its trailing comment (a ``#`` outside quotes)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote and line[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i].rstrip()
    return line


def _quoted(code: str) -> str:
    return "`" + clean_line(_without_comment(code), 80).replace("`", "'") + "`"


def wording(guard: FailedGuard, batch: int, set_by: tuple[str, str] = ("", "")) -> tuple[str, str]:
    """(detail, where): "recompiles at batch 3: the guard on `y.shape[0]` failed (compiled for 2), set by
    `for i in range(y.shape[0])` (pkg/f.py:14), after the graph break at pkg/f.py:12".

    ``set_by`` is (source line, where) of the first specialisation torch recorded in the same function,
    used when dynamo names no line for the guard. Every variable part is a number, a path or quoted
    code, so the reason index keeps one entry for one cause."""
    tensor, constant = _TENSOR_SIZE.match(guard.guard), _CONSTANT.match(guard.guard)
    if tensor:
        head = f"the guard on `{tensor['name']}.shape[{tensor['dim']}]` failed (compiled for {tensor['expected']})"
    elif constant:
        head = f"the guard on `{constant['name']}` failed (compiled for {constant['value']})"
    else:
        head = f"the guard {_quoted(guard.guard)} failed"
    code, where = (guard.code, guard.where) if guard.code else set_by
    text = f"recompiles at batch {batch}: {head}"
    if code:
        text += f", set by {_quoted(code)}" + (f" ({where})" if where else "")
    resume = _RESUME.match(guard.function)
    if resume:  # the code after a graph break is compiled on its own, for the sizes it first saw
        text += (f", after the graph break at {guard.function_where}" if guard.function_where
                 else f", after a graph break in `{resume['function']}`")
    return text, where or guard.function_where
