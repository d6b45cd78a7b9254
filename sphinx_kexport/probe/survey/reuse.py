"""The snapshot is the cache: results a rerun may reuse instead of measuring again.

A case's results on a device are reused when the case's fingerprint (its
definition, the library version, the tool versions, the opset and the device)
equals the one recorded next to them, and the snapshot's header for that
device names the same tools and library version as this run. So an unchanged
survey measures nothing, one added case measures one case, and a new torch
measures everything, with or without the work directory. A case with a path
that ran past a smaller time limit than this run's is measured again: the
larger limit may give it its answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...snapshot.result_records import to_measure_again
from .assemble import same_tools


@dataclass(frozen=True)
class Reusable:
    fingerprint: str
    measured_at: str
    results: dict[str, Any]


def reusable_results(previous: dict[str, Any] | None, device: str, tools: dict[str, Any], opset: int,
                     library_version: str, time_limit: float = float("inf")) -> dict[str, Reusable]:
    """Case name -> results of ``device`` in ``previous`` that were measured in this run's environment."""
    if previous is None:
        return {}
    env = previous["environments"].get(device)
    if env is None or previous["library"].get("version") != library_version:
        return {}
    if not same_tools(env, dict(tools, opset=opset)):
        return {}
    found = {}
    for entry in previous["cases"]:
        stamp = entry.get("measured", {}).get(device)
        results = entry["results"].get(device)
        if stamp and results and not to_measure_again(results, time_limit):
            found[entry["name"]] = Reusable(stamp["fingerprint"], stamp["measured_at"], results)
    return found
