"""The snapshot in memory: typed, read-only records the page renders.

``build`` turns a validated format-1 dict into them; the probe writes dicts
and never needs these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .causes import Cause, cause_of
from .vocabulary import DEVICES, DYNAMIC_STATIC, FAILING, NOT_APPLICABLE, ORIGIN_HAND, SUPPORTED


@dataclass(slots=True, frozen=True)
class Dynamic:
    """Does a supported capture hold at another batch size (the snapshot's ``dynamic`` object)?"""

    status: str  # ok | static | fail | n/a (vocabulary.DYNAMIC_STATUSES)
    detail: str = ""
    where: str = ""
    traced_batch: int | None = None
    where_code: str = ""
    run_batch: int | None = None
    cause: Cause | None = None  # why the batch is static or the capture fails (causes.py)

    @property
    def static(self) -> bool:
        return self.status == DYNAMIC_STATIC


@dataclass(slots=True, frozen=True)
class SpeedFigure:
    """One timing of a path against eager at one size (the snapshot's ``speed.figures`` entries)."""

    size: str  # vocabulary.SPEED_SIZES: the case's inputs, its batch grown, its bench= inputs
    shapes: str
    eager_s: float
    path_s: float
    ratio: float  # eager_s / path_s: above 1 the path is faster
    low: float
    high: float
    verdict: str  # vocabulary.SPEED_VERDICTS
    batch: int | None = None


@dataclass(slots=True, frozen=True)
class Speed:
    """What a supported path buys over eager (the snapshot's ``speed`` object, probe --speed)."""

    threads: int
    figures: tuple[SpeedFigure, ...] = ()
    note: str = ""
    fullgraph: bool | None = None  # compile only


@dataclass(slots=True)
class Result:
    status: str
    detail: str = ""
    stage: str = ""
    where: str = ""
    where_code: str = ""  # the statement at where (absent in older snapshots)
    graph_breaks: int = 0
    break_reasons: tuple[str, ...] = ()
    skipped_functions: tuple[str, ...] = ()  # compile: calls dynamo hands to Python (absent in older snapshots)
    # compile: whether fullgraph=True compiled one graph (the status follows it), the default compile's graphs,
    # and the dynamo flags that remove its breaks; None / () in older snapshots
    fullgraph: bool | None = None
    graphs: int | None = None
    breaks_removed_by: tuple[str, ...] = ()
    max_abs_diff: float | None = None
    provider: str = ""
    dynamic: Dynamic | None = None  # absent in older snapshots and when the pass did not run
    speed: Speed | None = None  # absent in older snapshots and runs without --speed
    cause: Cause | None = None  # a red result's cause (causes.py; read from the words of an older snapshot's)

    @property
    def supported(self) -> bool:
        return self.status in SUPPORTED

    @property
    def failing(self) -> bool:
        return self.status in FAILING


NOT_PROBED = Result(NOT_APPLICABLE, "not probed on this device")


def object_name(ref: str, aliases: tuple[str, ...] | list[str]) -> str:
    """One name for the object a case calls, whichever of its public names the case gives it (``ref``, the others
    in ``aliases``): the first of them in text order."""
    return min((ref, *aliases)) if aliases else ref


@dataclass(slots=True)
class Case:
    index: int
    name: str
    package: str
    section: str
    operator: str
    variant: str
    ref: str
    note: str
    results: dict[str, dict[str, Result]]
    origin: str = ORIGIN_HAND  # vocabulary.ORIGINS
    check: bool = True
    inputs: tuple[tuple[tuple[int, ...], str], ...] = ()
    call: str = ""
    aliases: tuple[str, ...] = ()  # the object's other public names (absent in older snapshots)

    def result(self, device: str, path: str) -> Result:
        return self.results.get(device, {}).get(path, NOT_PROBED)

    @property
    def operator_key(self) -> tuple[str, str]:
        """What counts as one operator: the object it calls when the snapshot names the object's other public names
        (one object under several names is one operator), else, as in snapshots without them, the operator's
        name in its package."""
        return ("", object_name(self.ref, self.aliases)) if self.aliases else (self.package, self.operator)


@dataclass(slots=True, frozen=True)
class ObjectWithoutCase:
    """An object whose docstring example yielded no case, and why (vocabulary.NO_CASE_KINDS)."""

    ref: str
    package: str
    kind: str
    detail: str


@dataclass(slots=True, frozen=True)
class Selection:
    """A run restricted with ``--only``: its patterns, and the cases they did not select that have no results."""

    only: tuple[str, ...]
    left_out: tuple[str, ...]


@dataclass(slots=True)
class Snapshot:
    source: str
    generated_at: str
    complete: bool
    library: dict[str, str]
    environments: dict[str, dict[str, Any]]
    cases: list[Case]
    missing: list[str] = field(default_factory=list)
    objects_without_cases: list[ObjectWithoutCase] = field(default_factory=list)
    selection: Selection | None = None

    @property
    def lost(self) -> list[str]:
        """The missing cases that a restricted run did not leave out on purpose (every missing one otherwise)."""
        left_out = set(self.selection.left_out) if self.selection else set()
        return [name for name in self.missing if name not in left_out]

    @property
    def devices(self) -> list[str]:
        """Devices in canonical order (cpu before cuda)."""
        return [d for d in DEVICES if d in self.environments]


def _result(raw: dict[str, Any]) -> Result:
    return Result(
        status=raw["status"], detail=raw["detail"], stage=raw["stage"], where=raw["where"],
        where_code=raw.get("where_code", ""), graph_breaks=raw.get("graph_breaks", 0), break_reasons=tuple(raw.get("break_reasons", ())),
        skipped_functions=tuple(raw.get("skipped_functions", ())),
        fullgraph=raw.get("fullgraph"), graphs=raw.get("graphs"),
        breaks_removed_by=tuple(raw.get("breaks_removed_by", ())),
        max_abs_diff=raw.get("max_abs_diff"), provider=raw.get("provider", ""),
        dynamic=_dynamic(raw["dynamic"]) if "dynamic" in raw else None,
        speed=_speed(raw["speed"]) if "speed" in raw else None,
        cause=cause_of(raw.get("cause")),
    )


def _speed(raw: dict[str, Any]) -> Speed:
    return Speed(threads=raw["threads"], figures=tuple(SpeedFigure(**figure) for figure in raw["figures"]),
                 note=raw.get("note", ""), fullgraph=raw.get("fullgraph"))


def _dynamic(raw: dict[str, Any]) -> Dynamic:
    return Dynamic(status=raw["status"], detail=raw["detail"], where=raw["where"],
                   traced_batch=raw.get("traced_batch"), run_batch=raw.get("run_batch"),
                   where_code=raw.get("where_code", ""), cause=cause_of(raw.get("cause")))


def build(data: dict[str, Any], source: str) -> Snapshot:
    cases = []
    for i, raw in enumerate(data["cases"]):
        cases.append(Case(
            index=i, name=raw["name"], package=raw["package"], section=raw["section"],
            operator=raw["operator"] or raw["name"], variant=raw["variant"], ref=raw["ref"], note=raw["note"],
            origin=raw["origin"],
            results={dev: {p: _result(r) for p, r in paths.items()} for dev, paths in raw["results"].items()},
            check=raw.get("check", True),
            inputs=tuple((tuple(i["shape"]), i["dtype"]) for i in raw.get("inputs", ())),
            call=raw.get("call", ""), aliases=tuple(raw.get("aliases", ())),
        ))
    return Snapshot(source=source, generated_at=data["generated_at"], complete=data["complete"],
                    library=dict(data["library"]), environments=dict(data["environments"]), cases=cases,
                    missing=list(data.get("missing", [])),
                    objects_without_cases=[ObjectWithoutCase(o["ref"], o["package"], o["kind"], o["detail"])
                                           for o in data.get("objects_without_cases", ())],
                    selection=Selection(tuple(data["selection"]["only"]), tuple(data["selection"]["left_out"]))
                    if "selection" in data else None)

