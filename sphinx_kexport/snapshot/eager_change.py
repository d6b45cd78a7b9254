"""Eager output, byte for byte: the cells whose eager outputs moved between two snapshots (``probe diff``'s
``eager`` rule).

Each measured cell's stamp holds the digest of the case's eager outputs with the torch and the machine that
computed it (``cases[i].measured[device].eager``: ``digest``, ``torch``, ``machine``). Two digests are compared
only when both name the same torch and the same machine: kernels differ between CPU generations, GPUs and torch
releases, so a digest computed elsewhere says nothing about the library's change (:func:`unpaired` lists those
cells instead of raising a false alarm). A cell with a digest on one side only (an older probe's record, a case
that no longer runs eagerly: its statuses say so) is compared on neither.

Pure data: :func:`sphinx_kexport.snapshot.diff.compare` turns a moved digest into a change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .vocabulary import EAGER_DIGEST

EAGER_MOVED = EAGER_DIGEST  # the rule id (``--allow eager``)
EAGER_FACTS = ("torch", "machine")  # what two digests must share to be compared
SHOWN_DIGITS = 12  # of a digest, in a line for a person


@dataclass(frozen=True)
class EagerStamp:
    """A cell's ``eager`` field: the digest and the ``torch.__version__`` and device name that computed it."""

    digest: str
    torch: str
    machine: str


@dataclass(frozen=True)
class EagerPair:
    """One cell's eager digests in the old and the new snapshot."""

    case: str
    device: str
    old: EagerStamp
    new: EagerStamp

    @property
    def comparable(self) -> bool:
        """Computed by the same torch on the same kind of machine."""
        return not differing(self.old, self.new)

    @property
    def moved(self) -> bool:
        return self.comparable and self.old.digest != self.new.digest

    def describe(self) -> str:
        """What follows the cell's head: ``output changed (digest a1b2c3 -> d4e5f6, torch 2.13.0+cpu, AMD EPYC)``."""
        return (f"output changed (digest {self.old.digest[:SHOWN_DIGITS]} -> {self.new.digest[:SHOWN_DIGITS]}, "
                f"torch {self.new.torch}, {self.new.machine})")


Digests = dict[str, dict[str, EagerStamp]]  # case name -> device -> its eager stamp


def differing(old: EagerStamp, new: EagerStamp) -> tuple[str, ...]:
    """The facts (:data:`EAGER_FACTS`) two stamps differ in: none, and their digests compare."""
    return tuple(fact for fact in EAGER_FACTS if getattr(old, fact) != getattr(new, fact))


def stamp_of(case: dict[str, Any], device: str) -> EagerStamp | None:
    """The case's eager stamp on ``device`` (its ``measured[device].eager``), None where it has none."""
    stamp = (case.get("measured") or {}).get(device)
    eager = stamp.get(EAGER_DIGEST) if isinstance(stamp, dict) else None
    if isinstance(eager, dict) and eager.get("digest") and {"torch", "machine"} <= set(eager):
        return EagerStamp(eager["digest"], eager["torch"], eager["machine"])
    return None


def digests(snapshot: dict[str, Any]) -> Digests:
    """Every cell's eager stamp, where the snapshot has one."""
    found: Digests = {}
    for case in snapshot.get("cases", []):
        for device in case.get("measured") or {}:
            stamp = stamp_of(case, device)
            if stamp is not None:
                found.setdefault(case["name"], {})[device] = stamp
    return found


def pair(old: Digests, new: Digests, name: str, device: str) -> EagerPair | None:
    """The cell's two digests, or None when either side has none."""
    before, after = old.get(name, {}).get(device), new.get(name, {}).get(device)
    if before is None or after is None:
        return None
    return EagerPair(name, device, before, after)


def unpaired(old: dict[str, Any], new: dict[str, Any], devices: Iterable[str]) -> list[EagerPair]:
    """The cells with a digest on both sides computed by another torch or on another machine: not compared.
    ``old``'s renamed cases already under their new names (diff.eager_not_compared)."""
    before, after = digests(old), digests(new)
    cells = (pair(before, after, name, device) for name in after for device in devices)
    return [cell for cell in cells if cell is not None and not cell.comparable]


def unpaired_line(cells: list[EagerPair]) -> str:
    """``eager output not compared for 3 case(s): measured on different machines or torch versions (torch
    2.12.0+cpu -> 2.13.0+cpu)``; "" for none."""
    if not cells:
        return ""
    moves = []
    for field in EAGER_FACTS:
        seen = dict.fromkeys((getattr(c.old, field), getattr(c.new, field)) for c in cells
                             if getattr(c.old, field) != getattr(c.new, field))
        moves += [f"{field} {a} -> {b}" for a, b in seen]
    return (f"eager output not compared for {len(cells)} case(s): measured on different machines or torch "
            f"versions ({'; '.join(moves)})")
