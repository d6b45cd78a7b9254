"""The snapshot is the cache: the results of a snapshot a rerun may reuse instead of measuring again.

What decides, case by case, is :mod:`..base.reuse` (every "measure again?" key, and the reasons): here the
snapshot's results of a device are read, when its environment is this run's
(:func:`~..base.reuse.decide.unusable_environment`), with the stamp of each (the fingerprint, the code it ran,
the probe code that measured it) and without those whose paths ran past a smaller time limit than this run's.
So an unchanged survey measures nothing, one added case measures one case, an edit to a shared helper measures
the cases that ran it, and a new torch measures everything, with or without the work directory.
"""

from __future__ import annotations

from typing import Any

from ...snapshot.code_table import unpack
from ...snapshot.result_records import to_measure_again
from ...snapshot.vocabulary import EAGER_DIGEST
from ..base.reuse.decide import PROBE_STAMP, Reusable, unusable_environment


def reusable_results(previous: dict[str, Any] | None, device: str, tools: dict[str, Any], opset: int,
                     library_version: str, time_limit: float = float("inf")) -> dict[str, Reusable]:
    """Case name -> results of ``device`` in ``previous`` that were measured in this run's environment (the
    other keys are checked by :func:`~..base.reuse.decide.snapshot_verdict`)."""
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
                                            stamp.get(EAGER_DIGEST), stamp.get(PROBE_STAMP))
    return found
