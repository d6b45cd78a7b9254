"""What a worker process is told: its settings once, then one assignment per case and device.

Both are plain dataclasses that pickle small: the worker rebuilds the case it
measures from its module and local name; the parent never sends a target or an input.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..base.code_digest import CodePlaces
from ..cases.inventory import DiscoveryRef, Source, SuiteRef
from .parent_state import ParentState


def thread_share(jobs: int) -> int:
    """Each of ``jobs`` processes' share of the CPUs, at least one."""
    return max(1, (os.cpu_count() or 1) // max(1, jobs))


def limit_threads(threads: int) -> None:
    """Before torch is imported: this process's math runs on ``threads`` threads, and inductor compiles in
    process (a pool of compile workers in each of several processes would oversubscribe the CPUs).

    OpenMP threads that wait for work sleep instead of spinning: an example's time limit is CPU time, so
    that what discovery finds does not depend on how busy the machine is, and spinning threads burn CPU
    time while they wait. Measured with kornia's ``SOLD2_detector`` example on 2 threads beside a survey's
    two workers: 63.7 s of CPU in 68 s, past the 60 s limit, spinning; under 60 s of CPU in 121 s, sleeping."""
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@dataclass(frozen=True)
class WorkerSettings:
    sys_path: list[str]  # the parent's, so the case modules import the same way
    sources: list[Source]  # every case module of the inventory
    library: str  # import name of the surveyed library ("" when none): where failures are located
    opset: int
    dynamic: bool  # run the dynamic-batch pass
    threads: int  # torch and onnxruntime threads: the worker's share of the CPUs
    log_path: str = ""  # the worker's stdout and stderr (set per worker slot)
    parent: ParentState = field(default_factory=ParentState)  # the survey's environment
    # a worker whose memory has grown past this after a case hands its slot to a fresh process (0: never)
    recycle_rss_kb: int = 3 * 1024 * 1024
    # what the code refs of the records are relative to, and the folders whose code a case's record names (the
    # library's, the case modules'); None: no code is watched
    code_places: CodePlaces | None = None
    code_folders: list[str] = field(default_factory=list)
    speed: bool = False  # run the speed pass (--speed): each supported path timed against eager


@dataclass(frozen=True)
class Assignment:
    """Measure ``paths`` of one case on ``device``."""

    name: str  # the case's name in the snapshot
    module: str  # the case module that registers it
    local_name: str  # the name that module registers it under
    device: str
    paths: list[str] = field(default_factory=list)
    discovery: DiscoveryRef | SuiteRef | None = None  # a discovered case is rebuilt from its example or test alone
    definition: dict[str, Any] | None = None  # cases.fingerprint.case_definition, as the inventory described it
