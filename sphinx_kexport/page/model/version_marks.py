"""What a cell says about torch versions: "since torch 2.11.0", "regressed in torch 2.15.0", ...

One pure function, :func:`version_mark`, decides it from the statuses one cell had in each torch version
that surveyed the case (oldest first). What counts:

* **works**: a supported status (``ok``, ``ok-breaks``, ``ok-unverified``): it captured and ran; a
  ``torch.compile`` with graph breaks still runs, and a random operator's shapes were checked;
* **fails**: ``fail`` or ``mismatch`` (the same line ``probe diff`` draws between a regression and a fix);
* **not known**: ``timeout`` and ``n/a``; a version that lacks the case is not passed in at all.

Only the versions where the cell is known are read:

* no known difference and the same status everywhere: no mark (``SAME``);
* fails, then works from one version on: ``since torch X``, X the first version known to work after the
  last known failure;
* works, then fails from one version on: ``regressed in torch Y``, Y the first version known to fail;
* works and fails in turn more than once: ``varies by version``;
* the statuses differ but never between working and failing (``ok`` and ``ok-breaks``, a timeout, n/a in
  one version): ``differs by version``.

The strip beside the words shows every version's status, so nothing is hidden by the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...snapshot.vocabulary import FAILING, SUPPORTED

SAME = ""
SINCE = "since"
REGRESSED = "regressed"
VARIES = "varies"
DIFFERS = "differs"
KINDS = (SINCE, REGRESSED, VARIES, DIFFERS)


@dataclass(frozen=True, slots=True)
class VersionMark:
    kind: str  # SAME, SINCE, REGRESSED, VARIES or DIFFERS
    version: str = ""  # the torch version named by SINCE and REGRESSED

    @property
    def words(self) -> str:
        """The cell's words, for every builder ("" when the versions agree)."""
        if self.kind == SINCE:
            return f"since torch {self.version}"
        if self.kind == REGRESSED:
            return f"regressed in torch {self.version}"
        if self.kind == VARIES:
            return "varies by version"
        if self.kind == DIFFERS:
            return "differs by version"
        return ""


def _works(status: str) -> bool | None:
    """True (works), False (fails) or None (not known: timeout, n/a)."""
    if status in SUPPORTED:
        return True
    if status in FAILING:
        return False
    return None


def version_mark(statuses: Sequence[str], versions: Sequence[str]) -> VersionMark:
    """The mark of one cell from its status in each version that has the case, oldest first."""
    if len(statuses) != len(versions):
        raise ValueError("one status per version")
    if len(set(statuses)) <= 1:
        return VersionMark(SAME)
    known = [(works, version) for works, version in
             ((_works(s), v) for s, v in zip(statuses, versions)) if works is not None]
    flips = [i for i in range(1, len(known)) if known[i][0] != known[i - 1][0]]
    if not flips:
        return VersionMark(DIFFERS)
    if len(flips) > 1:
        return VersionMark(VARIES)
    works, version = known[flips[0]]
    return VersionMark(SINCE if works else REGRESSED, version)
