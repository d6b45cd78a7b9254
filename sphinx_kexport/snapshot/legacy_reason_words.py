"""The reason index's grouping of words, for records without a cause the probe named (older snapshots).

A snapshot of an older probe says a failure's cause only in words, and :mod:`.legacy_causes` gives its record
no more than a class id from them: too coarse to tell "no ONNX lowering for torch.linalg.svd" from another
class member. The reason index (``page.model.reason_groups``) groups such records by their words with names,
paths, shapes and numbers replaced by placeholders, as it did before cause records; a record with a cause the
probe named is grouped by that cause and never read here. Standard library only.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Order matters: quoted text and paths first, so their insides are not
# rewritten piecemeal by the later rules.
_RULES = [
    (re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\""), "‹name›"),
    (re.compile(r"(?:[\w.-]*[A-Za-z][\w.-]*/)+[\w.-]+(?::\d+)?"), "‹path›"),
    # a single-module library's `where` has no folder: "fsim.py:241" is a path as much as "piq/fsim.py:241"
    (re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.py(?::\d+)?\b"), "‹path›"),
    (re.compile(r"torch\.Size\(\[[^\]]*\]\)|\((?:\s*-?\d+\s*,)+\s*-?\d*\s*\)|\[(?:\s*-?\d+\s*,)+\s*-?\d*\s*\]"),
     "‹shape›"),
    (re.compile(r"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+(?:\.\w+)*"), "‹name›"),  # aten::atan2, aten::add.Tensor
    (re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+\b"), "‹name›"),
    (re.compile(r"\b[A-Za-z]*_[\w]*\b"), "‹name›"),
    (re.compile(r"(?<=[A-Za-z])\d+\b"), "‹n›"),  # out0 / out1
    (re.compile(r"\b0x[0-9a-fA-F]+\b|[-+]?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b"), "‹n›"),
]
_SPACES = re.compile(r"\s+")

# Words that name a tool or a dtype: they are what a reason is about, not what varies between its
# instances ("onnx.checker rejects ..." is another reason than "onnxruntime cannot run ...", int64
# another than float32), so the rules above must not turn them into placeholders.
_KEPT = re.compile(
    r"\b(?:torch\.onnx\.export|torch\.onnx|torch\.export\.export|torch\.export|torch\.compile|torch\._dynamo"
    r"|onnx\.checker|onnxruntime|onnxscript|dynamo|inductor|fullgraph=True"
    r"|(?:torch\.)?(?:u?int(?:8|16|32|64)|float(?:16|32|64)|bfloat16|complex(?:32|64|128)|float8_\w+|bool))\b")
_KEEP_MARK = "\ue000"  # private-use characters: no rule above matches them


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """The reason with names, paths, shapes and numbers replaced by placeholders; tool and dtype names stay.

    Cached: a page repeats the same few reasons hundreds of times."""
    out = _SPACES.sub(" ", text).strip()
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return _KEEP_MARK + chr(0xE001 + len(kept) - 1)

    out = _KEPT.sub(keep, out)
    for pattern, placeholder in _RULES:
        out = pattern.sub(placeholder, out)
    return re.sub(_KEEP_MARK + "(.)", lambda m: kept[ord(m.group(1)) - 0xE001], out)
