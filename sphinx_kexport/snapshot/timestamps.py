"""The snapshot's timestamps (``generated_at``, ``probed_at``, ``measured_at``): UTC, seconds, ``Z``."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
