"""A failure's cause as a record, not as words: the fix class it belongs to and the facts the probe knew.

The probe words a failure for people (the result's ``detail``) and, beside the words, names its cause: a
:class:`Cause` whose ``id`` is one of the fix classes' ids (:data:`.fix_classes.FIX_CLASSES`, the one table
of classes), stored on the result as ``"cause": {"id": "data-dependent-guard", "operator": "Tensor.item()"}``.
Readers (the page, the worklist) look the class up by that id and read nothing of the words.

The same cause can need another fix on another path (a branch on tensor values is ``torch.where`` under
torch.compile, a ``torch._check`` under torch.export), and the probe words a cause before it knows the path:
so it names a :class:`CauseKind` (the class on torch.compile and on the capture paths), which becomes the
path's :class:`Cause` where the path's record is finished (:func:`settle`).

Records without a cause (snapshots of older probes) get one from :mod:`.legacy_causes` when read.
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .vocabulary import (COMPILE, DYNAMIC_FAIL, DYNAMIC_STATIC, FAILING, OK_BREAKS, SUPPORTED)

CAUSE = "cause"  # the key of a result's (and a dynamic result's) cause record


@dataclass(frozen=True)
class Cause:
    """One path's cause. ``id``: a fix class id; ``operator``: the torch operator it names ("torch.linalg.svd");
    ``setting``: a torch setting under which torch.compile traces it
    ("torch._dynamo.config.capture_scalar_outputs"). Empty fields are left out of the record. ``from_words``:
    read from an older probe's words (:mod:`.legacy_causes`), not named by the probe; never written, and not
    part of the cause's identity."""

    id: str
    operator: str = ""
    setting: str = ""
    from_words: bool = field(default=False, compare=False)

    def record(self) -> dict[str, str]:
        return {key: value for key, value in (("id", self.id), ("operator", self.operator),
                                              ("setting", self.setting)) if value}


class CauseFromWords(dict):
    """A ``cause`` object :mod:`.legacy_causes` read from a record's words, as the reader found the snapshot:
    written out, it is a plain cause object (a reused record's cause is a record from then on)."""


def cause_of(raw: Any) -> Cause | None:
    """The :class:`Cause` of a (validated) record's ``cause`` object; None when it has none."""
    if not isinstance(raw, dict) or "id" not in raw:
        return None
    return Cause(raw["id"], raw.get("operator", ""), raw.get("setting", ""),
                 from_words=isinstance(raw, CauseFromWords))


@dataclass(frozen=True)
class CauseKind:
    """A cause before its path is known: its class id on torch.compile and on torch.export / ONNX."""

    compile: str
    capture: str
    operator: str = ""
    setting: str = ""

    def on(self, path: str) -> Cause:
        return Cause(self.compile if path == COMPILE else self.capture, self.operator, self.setting)

    def naming(self, operator: str) -> CauseKind:
        return replace(self, operator=operator)


def kind(compile_class: str, capture_class: str | None = None, setting: str = "") -> CauseKind:
    """A kind with one class on every path, or ``compile_class`` on torch.compile and ``capture_class`` on
    torch.export and ONNX."""
    return CauseKind(str(compile_class), str(capture_class or compile_class), setting=setting)


def red(path: str, record: dict[str, Any]) -> bool:
    """Whether a path's record is one a cause belongs on: a failure, or a torch.compile cell where
    ``fullgraph=True`` fails (``ok-breaks``; a random operator's with breaks), as the worklist counts it."""
    status = record.get("status")
    if status in FAILING or status == OK_BREAKS:
        return True
    return (path == COMPILE and status in SUPPORTED and not record.get("fullgraph")
            and bool(record.get("graph_breaks") or record.get("skipped_functions")))


def dynamic_red(dynamic: Any) -> bool:
    """Whether a dynamic-batch record is one a cause belongs on: the batch is static, or the capture fails."""
    return isinstance(dynamic, dict) and dynamic.get("status") in (DYNAMIC_STATIC, DYNAMIC_FAIL)


def _settle_part(part: dict[str, Any], path: str, keep: bool) -> dict[str, Any]:
    named = part.pop(CAUSE, None)
    if keep and isinstance(named, CauseKind):
        part[CAUSE] = named.on(path).record()
    elif keep and isinstance(named, dict):  # settled already (a record reported again)
        part[CAUSE] = named
    return part


def settle_dynamic(dynamic: dict[str, Any], path: str) -> dict[str, Any]:
    """A dynamic-batch record with its cause fixed to the path (see :func:`settle`)."""
    return _settle_part(dynamic, path, dynamic_red(dynamic))


def settle(record: dict[str, Any], path: str) -> dict[str, Any]:
    """A path's record with its causes (its own and its dynamic result's) fixed to the path: a
    :class:`CauseKind` the probe named becomes the path's cause record; a cause on a record that is not red
    (an n/a, a timeout, a pass that held) is dropped. Changes ``record`` in place and returns it."""
    if isinstance(record.get("dynamic"), dict):
        settle_dynamic(record["dynamic"], path)
    return _settle_part(record, path, red(path, record))
