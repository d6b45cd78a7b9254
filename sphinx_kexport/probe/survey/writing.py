"""What a survey writes: the snapshot (left as it was when a rerun changed nothing but times) and the --stats
file of timings and peak memory."""

from __future__ import annotations

import json
import time
from typing import Any

from ...snapshot import SnapshotError, dump_snapshot, write_atomic
from ..base.errors import ToolError
from ..base.memory import peak_rss_kb
from ..cases.inventory import InventoryCase
from ..discover.cache import cache_usage
from ..run.inventory import Inventory
from ..run.pool import Runner
from ..run.workdir import WorkDir
from .assemble import build_snapshot, header_to_write
from .baseline import Baseline
from .cells import Cells
from .config import ProbeConfig
from ..base.reuse.decide import unusable_environment


def write_snapshot(config: ProbeConfig, base: Baseline, tools: dict[str, str], inventory: Inventory, cells: Cells,
                   selected: list[InventoryCase], work: WorkDir, notes: list[str]) -> tuple[dict[str, Any], bool]:
    """The snapshot, and whether it was written (not when nothing was measured and nothing but times changed:
    then the snapshot there is, as it was)."""
    environments = {}
    # the devices whose written results include one a worker measured (this run's, or the interrupted run's)
    measured_on = {device for _, device in cells.fresh | cells.plan.resumed_cells}
    for device in config.devices:
        # written by a worker of this run, or of the interrupted run whose records were reused
        env = work.environment(device)
        if env is None or env.get("opset") != config.opset or env.get("torch") != inventory.torch_version:
            env = inventory.environments[device]  # no worker ran: every case was reused or skipped
        environments[device] = header_to_write(env, _kept_header(config, base, tools, device), device in measured_on)
    # a hand-written case measured before the join is kept only if the joined inventory still lists it
    listed = {case.name for case in inventory.cases}
    measured = {cell: results for cell, results in cells.measured.items() if cell[0] in listed}
    try:
        snapshot, more = build_snapshot(cases=inventory.cases, measured=measured, environments=environments,
                                        library=_library_to_write(base, cells), previous=_kept(config, base,
                                                                                                inventory.cases),
                                        stamps=cells.stamps,
                                        objects_without_cases=inventory.objects_without_cases,
                                        not_carried=set(cells.unbuilt) | cells.stopped,
                                        # a shard's part leaves the other shards' cases out, --only or not
                                        only=[] if config.shard else config.only,
                                        selected={case.name for case in selected},
                                        code_sets=cells.code_sets)
    except SnapshotError as exc:  # a bug in the probe, not in the user's cases
        raise ToolError(f"the snapshot does not validate, not writing it: {exc}") from None
    notes += more
    previous = base.previous
    written = bool(cells.plan.tasks) or bool(cells.plan.resumed) or previous is None or \
        _timeless(snapshot) != _timeless(previous)
    if not written:  # a rerun that measured nothing leaves the committed file as it was, not a diff of times
        assert previous is not None
        return previous, False
    try:
        dump_snapshot(snapshot, config.out)
    except SnapshotError as exc:
        raise ToolError(f"the snapshot does not validate, not writing it: {exc}") from None
    return snapshot, True


def _library_to_write(base: Baseline, cells: Cells) -> dict[str, Any]:
    """The library's name, version and revision: this checkout's when the run measured something, else the
    snapshot's own (its revision names the commit that measured its results: a pull request's new commit that
    measured nothing would otherwise rewrite a committed snapshot that still holds)."""
    previous = (base.previous or {}).get("library") or {}
    nothing_measured = not (cells.plan.tasks or cells.plan.resumed)
    same = all(previous.get(key) == base.info.get(key) for key in ("name", "version"))
    return dict(previous) if nothing_measured and previous and same else base.info


def _kept_header(config: ProbeConfig, base: Baseline, tools: dict[str, str], device: str) -> dict[str, Any] | None:
    """The header of ``device`` in the snapshot whose results the written one keeps (None: there is none, or
    its results are not kept: other tools or another library version)."""
    if unusable_environment(base.carried, device, tools, config.opset, base.info["version"]):
        return None
    assert base.carried is not None
    return base.carried["environments"][device]


def _kept(config: ProbeConfig, base: Baseline, cases: list[InventoryCase]) -> dict[str, Any] | None:
    """The snapshot whose results the written one keeps for the cases not measured now; for a shard, only
    its own slice of the cases (a part holds no other shard's cases, or `merge` would see them twice)."""
    if not config.shard or base.carried is None:
        return base.carried
    mine = {case.name for i, case in enumerate(cases) if config.shard.selects(i)}
    return dict(base.carried, cases=[c for c in base.carried["cases"] if c["name"] in mine])


def _timeless(snapshot: dict[str, Any]) -> str:
    """The snapshot without the times a run stamps even when it measures nothing (when it was written,
    when each environment was probed, when each skip entry was recorded)."""
    copy = json.loads(json.dumps(snapshot))
    copy.pop("generated_at", None)
    for env in copy.get("environments", {}).values():
        if isinstance(env, dict):
            env.pop("probed_at", None)
    for case in copy.get("cases", []):
        for stamp in (case.get("measured") or {}).values():
            if isinstance(stamp, dict):
                stamp.pop("measured_at", None)
    return json.dumps(copy, sort_keys=True)


def survey_stats(began: float, measuring: float, runner: Runner, cells: Cells, inventory: Inventory | None, *,
                 streamed: bool, ended: bool) -> dict[str, Any]:
    """Timings and peak memory so far; ``ended`` is False for a run that stopped before its snapshot."""
    return {
        "ended": ended,
        "wall_seconds": round(time.monotonic() - began, 3),
        "measure_seconds": round(time.monotonic() - measuring, 3),
        "cases_finished": len(cells.seconds), "jobs": runner.jobs, "streamed": streamed,
        "parent_peak_rss_kb": peak_rss_kb(),
        "inventory": {"modules": [vars(m) for m in inventory.modules]} if inventory else {},
        "workers": list(runner.stats.peaks), "workers_recycled": runner.stats.recycled,
        "workers_fresh_for_weights": runner.stats.fresh_for_weights,
        "cases_not_built_in_time": runner.stats.not_built_in_time,
        "discovery_cache": cache_usage(),
        "case_seconds": dict(cells.seconds), "case_peak_rss_kb": dict(cells.case_memory),
        "case_began_rss_kb": dict(cells.case_began),
        "step_seconds": {step: round(seconds, 3) for step, seconds in runner.stats.step_seconds.most_common()},
        "stopped_at_limit": len(cells.stopped),
    }


def write_stats(config: ProbeConfig, stats: dict[str, Any]) -> None:
    """Write --stats, when asked for."""
    if config.stats:
        config.stats.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(config.stats, json.dumps(stats, indent=2) + "\n")
