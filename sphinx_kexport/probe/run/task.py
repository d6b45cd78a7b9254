"""One case on one device as the worker pool measures it: what is still to measure, and what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cases.inventory import DiscoveryRef, SuiteRef
from .settings import Assignment


@dataclass
class Task:
    name: str
    module: str  # the case module that registers it
    local_name: str  # the name that module registers it under
    device: str
    fingerprint: str
    paths: list[str]  # still to measure
    discovery: DiscoveryRef | SuiteRef | None = None  # a discovered case is rebuilt from its example or test alone
    definition: dict[str, Any] | None = None  # as the inventory described it: the worker checks what it built
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the code it ran ({ref: digest}), from every worker it had; None: no worker said (no record of it is kept)
    code: dict[str, str] | None = None
    # the digest of its eager outputs with the torch and machine that computed it (messages.EagerDigest.stamp);
    # None: eager failed, or no worker said
    eager: dict[str, str] | None = None
    seconds: float = 0.0
    peak_rss_kb: int = 0  # the most resident memory its worker used while measuring it
    began_rss_kb: int = 0  # what its worker held when it began (left by earlier cases): part of that peak
    weight_bytes: int = 0  # of the module it calls: at pool.FRESH_WORKER_ABOVE or more it gets a fresh worker

    def assignment(self) -> Assignment:
        """What its worker is sent: the paths still to measure."""
        return Assignment(self.name, self.module, self.local_name, self.device, list(self.paths), self.discovery,
                          self.definition)
