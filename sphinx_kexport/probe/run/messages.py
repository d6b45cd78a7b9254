"""What a worker tells the parent, one frozen dataclass per kind (what the parent tells a worker: an
:class:`~.settings.Assignment`, or ``None`` to stop).

The parent matches each message by its type (pool.Runner); one of a type it does not know is the probe's
error. They pickle small: a record of plain data, never a tensor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Union

from ...snapshot.eager_change import EagerStamp
from ..cases.step import Step


@dataclass(frozen=True)
class Ready:
    """Torch and the case modules are imported: the worker takes assignments."""

    pid: int


@dataclass(frozen=True)
class CouldNotStart:
    """Importing torch or the case modules failed: an environment problem, the survey cannot go on."""

    why: str


@dataclass(frozen=True)
class Environment:
    """What ``device`` is (torch, onnxruntime, the device's name), sent before its first case."""

    device: str
    environment: dict[str, Any]


@dataclass(frozen=True)
class StepBegan:
    """The case began ``step``: a worker that dies or hangs now loses that step only."""

    name: str
    device: str
    step: Step


@dataclass(frozen=True)
class PathResult:
    """``path``'s record, sent when it ends (again when its dynamic-batch pass ends)."""

    name: str
    device: str
    path: str
    result: dict[str, Any]


@dataclass(frozen=True)
class CodeRan:
    """The library's and the project's code the case has run so far (``{ref: digest}``, :mod:`..measure.code_watch`),
    sent as each step begins and once the last has ended: a rerun reuses its records only while that code is
    unchanged."""

    name: str
    device: str
    code: dict[str, str]


@dataclass(frozen=True)
class EagerDigest:
    """The digest of the case's eager outputs (:mod:`..measure.eager_digest`), sent when its eager step ended,
    with the torch (``torch.__version__``) and the machine (the device's name: CPU model, GPU name) that computed
    it: a digest compares only with one computed on the same (:mod:`sphinx_kexport.snapshot.eager_change`)."""

    name: str
    device: str
    eager: EagerStamp

    def stamp(self) -> dict[str, str]:
        """The ``eager`` field of the case's ``measured`` stamp on its device."""
        return dataclasses.asdict(self.eager)


@dataclass(frozen=True)
class NotBuilt:
    """The case cannot be built as the inventory described it: nothing measured; the worker goes on."""

    name: str
    device: str
    why: str


@dataclass(frozen=True)
class CaseDone:
    """The case ended. ``retiring``: the worker still held more than ``recycle_rss_kb`` after it and exits after
    this message."""

    name: str
    device: str
    lifetime_peak_kb: int  # the worker's, since it started
    case_peak_kb: int  # while it measured this case
    retiring: bool
    began_kb: int  # what it held when the case began (left by earlier cases)


WorkerMessage = Union[Ready, CouldNotStart, Environment, StepBegan, PathResult, CodeRan, EagerDigest, NotBuilt,
                      CaseDone]
