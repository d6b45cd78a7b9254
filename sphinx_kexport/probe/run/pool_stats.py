"""What --stats says about a pool's workers: each one's peak memory, how many were replaced and why, and
where their time went (per step)."""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PoolStats:
    peaks: list[dict[str, Any]] = field(default_factory=list)  # of each worker that stopped, in that order
    recycled: int = 0  # workers that handed their slot to a fresh process after a case
    fresh_for_weights: int = 0  # workers started afresh for a case with large weights
    not_built_in_time: int = 0  # cases whose worker did not build them within the build limit
    step_seconds: collections.Counter[str] = field(default_factory=collections.Counter)  # by step name

    def count(self, step: str, seconds: float) -> None:
        if step:
            self.step_seconds[step] += seconds

    def retired(self, peak: dict[str, Any] | None) -> None:
        if peak:
            self.peaks.append(peak)
