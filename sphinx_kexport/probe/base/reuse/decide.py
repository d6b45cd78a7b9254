"""Whether a case's earlier result on a device is reused or measured again, and why (:class:`~.keys.Reason`).

A result is reused while every key of :data:`~.keys.KEYS` that decides on results holds: the device's
environment (:func:`unusable_environment`), the probe code that measured it and the case's fingerprint, the code
it ran, the time limit it ran under, and what this run asks of it (speed figures, the fullgraph=True rule)
(:func:`snapshot_verdict`, :func:`resume_verdict`). Standard library only: the probe's parent decides from the
inventory and the snapshot, never from a built case.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ....snapshot.result_records import (before_fullgraph_rule, speed_missing, speed_of_constants, speed_traced,
                                         to_measure_again)
from ..code_digest import CodeCheck
from .keys import Reason
from .own_code import measuring_code

COMPARABLE_ENV = ("torch", "onnx", "onnxruntime", "onnxscript", "python", "opset")  # the environment key
PROBE_STAMP = "probe"  # the field of a record's stamp that names the probe code that measured it


def same_tools(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(key) == b.get(key) for key in COMPARABLE_ENV)


def fingerprint(definition: dict[str, Any], device: str, opset: int, library_version: str, tools: dict[str, str],
                dynamic: bool = True, probe: str | None = None) -> str:
    """The fingerprint of a case's definition (``cases.fingerprint.case_definition``) measured on ``device`` by
    the probe code ``probe`` (default: this probe's, :func:`~.own_code.measuring_code`)."""
    payload = {"probe": probe or measuring_code(), "case": definition, "device": device, "opset": opset,
               "library": library_version, "tools": tools, "dynamic": dynamic}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def reusable_keys(definition: dict[str, Any], device: str, opset: int, library_version: str, tools: dict[str, str],
                  dynamic: bool) -> tuple[str, ...]:
    """The fingerprints whose results this run may reuse; the first is the one it stamps on what it measures.

    With the dynamic-batch pass on, only results measured with it; with it off, either kind (results that
    have the dynamic results are kept whole). For a torch with a local version (``+cu128``), also the
    fingerprints stamped under its public version (below)."""
    stamped = [tools]
    exact = str(tools.get("torch") or "")
    if "+" in exact:
        # a record stamped before the parent read torch's own version (torch 2.9.1+cu128 as "2.9.1", its
        # distribution's): the header it sits under names the exact build, which the caller has compared
        stamped.append(dict(tools, torch=exact.split("+", 1)[0]))
    keys = [fingerprint(definition, device, opset, library_version, t, dynamic=dynamic) for t in stamped]
    if not dynamic:
        keys += [fingerprint(definition, device, opset, library_version, t, dynamic=True) for t in stamped]
    return tuple(keys)


@dataclass(frozen=True)
class Reusable:
    """A snapshot's result of a case on a device, with its stamp."""

    fingerprint: str
    measured_at: str
    results: dict[str, Any]
    code: dict[str, str] | None = None  # {ref: digest} it ran; None: not recorded (an older probe's record)
    seconds: float | None = None  # what measuring it took
    eager: dict[str, str] | None = None  # the digest of its eager outputs, with the torch and machine (or None)
    probe: str | None = None  # the probe code that measured it; None: not recorded (an older probe's record)


def unusable_environment(previous: dict[str, Any] | None, device: str, tools: dict[str, Any], opset: int,
                         library_version: str) -> Reason | None:
    """Why none of ``previous``'s results on ``device`` may be reused (None when they may)."""
    if previous is None:
        return Reason("no-snapshot")
    env = previous["environments"].get(device)
    if env is None:
        return Reason("no-device", {"device": device})
    if previous["library"].get("version") != library_version:
        return Reason("library-version", {"before": previous["library"].get("version"), "now": library_version})
    now = dict(tools, opset=opset)
    if not same_tools(env, now):
        return Reason("environment", {"changes": [[key, env.get(key), now.get(key)] for key in COMPARABLE_ENV
                                                  if env.get(key) != now.get(key)]})
    return None


def _probe_reason(stamped: str | None) -> Reason | None:
    if stamped is None:
        return Reason("probe-unnamed")
    now = measuring_code()
    return None if stamped == now else Reason("probe-code", {"before": stamped, "now": now})


def _code_reason(code: dict[str, str] | None, check: CodeCheck | None) -> Reason | None:
    if check is None:  # not checked (a caller that lists no code)
        return None
    if code is None:
        return Reason("code-unlisted")
    changed = check.changed(code)
    return Reason("code-changed", {"refs": changed}) if changed else None


def _asked_reason(results: dict[str, Any], speed: bool) -> Reason | None:
    """What this run asks of a record that it lacks: the speed pass's figures, the fullgraph=True rule."""
    if speed and speed_missing(results):
        return Reason("speed-missing")
    if speed and speed_traced(results):
        return Reason("speed-traced")
    if speed and speed_of_constants(results):
        return Reason("speed-constants")
    return Reason("before-fullgraph") if before_fullgraph_rule(results) else None


def snapshot_verdict(hit: Reusable, accepted: tuple[str, ...], check: CodeCheck | None,
                     speed: bool = False) -> Reason | None:
    """Why the snapshot's result of a case is measured again (None: it is reused). ``accepted``: the
    fingerprints this run accepts (:func:`reusable_keys`); ``check``: the code check (None: not checked);
    ``speed``: this run times the cases. The snapshot's environment was compared before
    (:func:`unusable_environment`), and its time limits (``to_measure_again``)."""
    return (_probe_reason(hit.probe)
            or (Reason("definition") if hit.fingerprint not in accepted else None)
            or _code_reason(hit.code, check)
            or _asked_reason(hit.results, speed))


def resume_verdict(record: dict[str, Any], time_limit: float, check: CodeCheck | None,
                   speed: bool = False) -> Reason | None:
    """Why an interrupted run's record is not resumed (None: it is). Its fingerprint matched one this run
    accepts, so it was measured by this probe code."""
    results = record["results"]
    if to_measure_again(results, time_limit):
        return Reason("time-limit", {"limit": time_limit})
    return _code_reason(record.get("code"), check) or _asked_reason(results, speed)
