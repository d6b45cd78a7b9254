"""The snapshot is the cache: results a rerun may reuse instead of measuring again.

A case's results on a device are reused when

- the case's fingerprint (its definition, the library version, the tool versions, the opset and the device)
  equals the one recorded next to them, and the snapshot's header for that device names the same tools and
  library version as this run;
- the code the case ran when it was measured is the code there is now: every function of the library and of
  the project it ran (and the imports, constants and classes of their files that those functions read) digests as it
  did (:mod:`..base.code_digest`).
  A record without that list (an older probe's) is measured again;
- no path ran past a smaller time limit than this run's (the larger limit may give it its answer).

So an unchanged survey measures nothing, one added case measures one case, an edit to a shared helper measures
the cases that ran it, and a new torch measures everything, with or without the work directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...snapshot.code_table import unpack
from ...snapshot.result_records import to_measure_again
from ...snapshot.vocabulary import EAGER_DIGEST
from ..base.code_digest import CodeCheck
from .assemble import COMPARABLE_ENV, same_tools


@dataclass(frozen=True)
class Reusable:
    fingerprint: str
    measured_at: str
    results: dict[str, Any]
    code: dict[str, str] | None = None  # {ref: digest} it ran; None: not recorded (an older probe's record)
    seconds: float | None = None  # what measuring it took
    eager: dict[str, str] | None = None  # the digest of its eager outputs, with the torch and machine (or None)


def unusable_environment(previous: dict[str, Any] | None, device: str, tools: dict[str, Any], opset: int,
                         library_version: str) -> str:
    """Why none of ``previous``'s results on ``device`` may be reused ("" when they may)."""
    if previous is None:
        return "there is no snapshot yet"
    env = previous["environments"].get(device)
    if env is None:
        return f"the snapshot has no {device} results"
    if previous["library"].get("version") != library_version:
        return (f"the library's version changed ({previous['library'].get('version') or 'none'} -> "
                f"{library_version or 'none'})")
    now = dict(tools, opset=opset)
    if not same_tools(env, now):
        changed = [f"{key} {env.get(key)} -> {now.get(key)}" for key in COMPARABLE_ENV
                   if env.get(key) != now.get(key)]
        return f"new environment ({', '.join(changed)})"
    return ""


def reusable_results(previous: dict[str, Any] | None, device: str, tools: dict[str, Any], opset: int,
                     library_version: str, time_limit: float = float("inf")) -> dict[str, Reusable]:
    """Case name -> results of ``device`` in ``previous`` that were measured in this run's environment (their
    code is checked by :func:`changed_code`)."""
    if unusable_environment(previous, device, tools, opset, library_version):
        return {}
    assert previous is not None
    table = unpack(previous.get("code"))
    found = {}
    for entry in previous["cases"]:
        stamp = entry.get("measured", {}).get(device)
        results = entry["results"].get(device)
        if stamp and results and not to_measure_again(results, time_limit):
            found[entry["name"]] = Reusable(stamp["fingerprint"], stamp["measured_at"], results,
                                            table.get(stamp.get("code", "")), stamp.get("seconds"),
                                            stamp.get(EAGER_DIGEST))
    return found


def changed_code(code: dict[str, str] | None, check: CodeCheck) -> list[str] | None:
    """The refs of ``code`` that changed since it was recorded ([] when none did); None when no code was
    recorded, so nothing says the record still holds."""
    if code is None:
        return None
    return check.changed(code)
