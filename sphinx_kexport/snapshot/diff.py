"""Compare two snapshots: what regressed, what was fixed, what merely changed.

Pure Python (no torch): the probe's ``diff`` command and the page's
``:compare:`` option share it. Both inputs are format-1 dicts (pass them
through :func:`sphinx_kexport.snapshot.normalise` first, which also converts
Kornia's format).

Ranking: ``ok``, ``ok-breaks`` and ``ok-unverified`` are supported. Supported
-> ``mismatch``/``fail`` is a regression; ``mismatch``/``fail`` -> supported
is a fix. Everything else that differs (n/a transitions, a case or device
that appears or disappears, fail <-> mismatch, ok <-> ok-breaks, a different
number of graph breaks) is a change, reported but not a regression.

The compile-first gate (``probe diff``; :data:`COMPILE_FIRST_RULES`, each allowed with ``--allow``) also
counts two torch.compile changes as regressions: ``fullgraph`` (``ok`` -> ``ok-breaks``: ``torch.compile(fn,
fullgraph=True)`` no longer compiles the call; ``ok-breaks`` -> ``ok`` is then a fix) and ``breaks`` (a supported
cell whose default compile breaks more often than before). The page's ``:compare:`` does not apply them.

The dynamic-batch result of a cell (``dynamic``) is compared too, when both
snapshots have one: ``ok`` -> ``static``/``fail`` (it held at any batch size,
now it does not) is a regression, ``static``/``fail`` -> ``ok`` a fix, any
other difference a change. A dynamic result that appears or disappears is no
change (older snapshots and ``--no-dynamic`` runs have none), except for the gate (``vanished``): a supported
cell whose dynamic result was ``ok`` and is gone is a regression under the rule ``dynamic``
(:data:`DYNAMIC_LOST`; ``--allow dynamic`` makes it a change). One change per
cell: its kind is the worse of the status's and the dynamic result's.

Each change names its cause where the snapshots hold it (:mod:`.diff_cause`): the code its case ran that
differs between the two records (``code``), and the library line of the failure (``where``).

The speed figures of a cell (``speed``, probe ``--speed``) are compared at each size both snapshots timed:
a ratio that moved beyond both spreads (the new spread clear of the old) is a change, never a regression
of support (timings move with the machine and its load). Figures that appear or disappear are no change.

The gate also compares each cell's eager output digest (``eager=True``; :mod:`.eager_change`): one that moved on
the same torch and machine is a regression under the ``eager`` rule (:data:`GATE_RULES`), a change when allowed;
cells measured on different machines or torch versions are listed by :func:`eager_not_compared` instead.

A case that an incomplete snapshot (``complete: false``: a shard part, a
merge with ``--allow-incomplete``) lists but did not measure on a device is
not compared there (:func:`not_compared`): it was not probed, which says
nothing about the case; only a complete snapshot's missing case is "absent".

A case is matched by name, or, when only one snapshot has the name, by the
object it calls: a case named after another public name of the same object
(its ``ref`` or ``aliases``), with the same variant and origin, is the same case
renamed (:func:`renamed`), compared under its new name rather than reported as
one case gone and another new.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from .diff_cause import NO_CODE_DELTA, SHOWN, CodeDelta, code_by_case, code_delta, failure_where, shortened
from . import eager_change
from .eager_change import EAGER_MOVED, EagerPair
from .vocabulary import (COMPILE, DEVICES, DYNAMIC_FAIL, DYNAMIC_OK, DYNAMIC_STATIC, FAILING, OK, OK_BREAKS,
                         PATH_LABELS, PATHS, SPEED_UNCLEAR, STAGE_EAGER, SUPPORTED, speed_mark, speed_size)

KINDS = ("regressed", "fixed", "changed")

# the compile-first gate's rules: torch.compile changes that regress a compile-first library though every cell
# still runs (ids; --allow takes them), and how a line says each
FULLGRAPH_LOST = "fullgraph"
MORE_BREAKS = "breaks"
COMPILE_FIRST_RULES = (FULLGRAPH_LOST, MORE_BREAKS)
RULE_WORDS = {FULLGRAPH_LOST: "torch.compile(fn, fullgraph=True) no longer compiles it",
              MORE_BREAKS: "the default torch.compile breaks it more often",
              EAGER_MOVED: "its eager output changed on the same machine and torch"}
# the gate's rule for a dynamic-batch result that vanished (compare's ``vanished``); --allow takes it too
DYNAMIC_LOST = "dynamic"
RULE_WORDS[DYNAMIC_LOST] = "the dynamic-batch result is gone: the new record was measured without the dynamic pass"
GATE_RULES = (*COMPILE_FIRST_RULES, DYNAMIC_LOST, EAGER_MOVED)  # every rule --allow takes


@dataclass(frozen=True)
class Change:
    case: str
    device: str
    path: str
    old_status: str | None  # None: not in the old snapshot (case or device absent)
    new_status: str | None  # None: not in the new snapshot
    kind: str  # regressed | fixed | changed
    old_detail: str = ""
    new_detail: str = ""
    old_breaks: int = 0
    new_breaks: int = 0
    old_dynamic: str | None = None  # the dynamic-batch statuses, set only when that result changed
    new_dynamic: str | None = None
    new_dynamic_detail: str = ""
    speed: tuple[str, ...] = ()  # the speed figures that moved beyond their spreads, in words
    rule: str = ""  # the gate's rule (COMPILE_FIRST_RULES, DYNAMIC_LOST) that made it a regression or a fix, if any
    code: CodeDelta = NO_CODE_DELTA  # the code the case ran that differs between the two records (diff_cause)
    where: str = ""  # the library line (path:line) of the failure: the new result's, the old one's for a fix
    eager: EagerPair | None = None  # path STAGE_EAGER: the eager output digests that moved

    @property
    def status_changed(self) -> bool:
        return self.old_status != self.new_status or self.old_breaks != self.new_breaks

    @property
    def dynamic_changed(self) -> bool:
        return self.old_dynamic != self.new_dynamic

    def describe(self) -> str:
        """One line for a person, e.g. ``filters.x [cpu] ONNX: ok -> fail (no ONNX lowering for ...)``
        or ``filters.x [cpu] ONNX at another batch size: ok -> static (the batch size is ...)``."""
        head = f"{self.case} [{self.device}] {PATH_LABELS.get(self.path, self.path)}"
        parts = []
        if self.status_changed:
            old = self.old_status or "absent"
            new = self.new_status or "absent"
            if old == new:  # only the graph-break count moved (ok-breaks, or ok-unverified with breaks)
                old, new = f"{old} ({self.old_breaks})", f"{new} ({self.new_breaks})"
            why = self.status_why()
            parts.append(f": {old} -> {new}" + (f" ({why})" if why else ""))
        if self.dynamic_changed:
            why = self.dynamic_why()
            parts.append((", and" if parts else "") + f" at another batch size: {self.old_dynamic} -> "
                         f"{self.new_dynamic or 'absent'}" + (f" ({why})" if why else ""))
        for moved in self.speed:
            parts.append((", and" if parts else "") + f" speed {moved}")
        if self.eager is not None:
            parts.append(f" {self.eager.describe()}")
        return head + "".join(parts) + "".join(f"; {words}" for words in self.cause())

    def status_why(self) -> str:
        """Why the status moved, in words ("" for a fix): the rule that made it a regression, the new detail."""
        why = self.new_detail if self.kind != "fixed" else ""
        if self.rule in COMPILE_FIRST_RULES and self.kind == "regressed":
            why = RULE_WORDS[self.rule] + (f": {why}" if why else "")
        return why

    @property
    def dynamic_lost(self) -> bool:
        return self.old_dynamic == DYNAMIC_OK and self.new_dynamic is None

    def dynamic_why(self) -> str:
        """Why the dynamic-batch result moved, in words ("" for one that now holds)."""
        if self.dynamic_lost:
            return RULE_WORDS[DYNAMIC_LOST]
        return self.new_dynamic_detail if self.new_dynamic != DYNAMIC_OK else ""

    def code_words(self, shown: int = SHOWN) -> list[str]:
        """The code that changed, one item per list: ``changed: a, b and 2 more``, ``added: c``."""
        words = []
        for label, refs in self.code.lists():
            named, more = shortened(refs, shown)
            words.append(f"{label}: " + ", ".join(named) + (f" and {more} more" if more else ""))
        return words

    def cause(self) -> list[str]:
        """The cause in words: :meth:`code_words`, then the failure's line (``at lib/x.py:3``)."""
        return self.code_words() + ([f"at {self.where}"] if self.where else [])


def classify(old: str | None, new: str | None) -> str:
    if old in SUPPORTED and new in FAILING:
        return "regressed"
    if old in FAILING and new in SUPPORTED:
        return "fixed"
    return "changed"


def compile_first(path: str, old: dict[str, Any], new: dict[str, Any], rules: Iterable[str]) -> tuple[str, str]:
    """(kind, rule) of a torch.compile change under the compile-first ``rules``; ("", "") when none applies."""
    if path != COMPILE:
        return "", ""
    rules = set(rules)
    before, after = old.get("status"), new.get("status")
    if FULLGRAPH_LOST in rules and (before, after) == (OK, OK_BREAKS):
        return "regressed", FULLGRAPH_LOST
    if FULLGRAPH_LOST in rules and (before, after) == (OK_BREAKS, OK):
        return "fixed", FULLGRAPH_LOST
    if (MORE_BREAKS in rules and before in SUPPORTED and after in SUPPORTED
            and int(new.get("graph_breaks", 0)) > int(old.get("graph_breaks", 0))):
        return "regressed", MORE_BREAKS
    return "", ""


DYNAMIC_FAILING = frozenset({DYNAMIC_STATIC, DYNAMIC_FAIL})  # a supported cell that does not hold at any batch


def classify_dynamic(old: str | None, new: str | None) -> str | None:
    """The kind of a dynamic-batch change, or None when it is no change (equal, or either side absent)."""
    if old is None or new is None or old == new:
        return None
    if old == DYNAMIC_OK and new in DYNAMIC_FAILING:
        return "regressed"
    if old in DYNAMIC_FAILING and new == DYNAMIC_OK:
        return "fixed"
    return "changed"


def dynamic_gone(old: str | None, new: str | None, new_status: str | None) -> bool:
    """Whether a cell, still supported, lost the dynamic-batch result that held at any batch (the gate's)."""
    return old == DYNAMIC_OK and new is None and new_status in SUPPORTED


def worse(a: str | None, b: str | None) -> str:
    """The more serious of two kinds (regressed > fixed > changed); None counts as no change."""
    for kind in KINDS:
        if kind in (a, b):
            return kind
    return "changed"


def _dynamic_status(result: dict[str, Any]) -> str | None:
    dynamic = result.get("dynamic")
    return dynamic.get("status") if isinstance(dynamic, dict) else None


def speed_figures(result: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """A path result's speed figures by what they timed: (size, batch, shapes) -> figure."""
    speed = result.get("speed")
    figures = speed.get("figures", []) if isinstance(speed, dict) else []
    return {(f.get("size"), f.get("batch"), f.get("shapes")): f for f in figures if isinstance(f, dict)}


def spreads_overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two figures' spreads (low-high) overlap: then their ratios differ by no more than the noise."""
    return not (b["high"] < a["low"] or b["low"] > a["high"])


def speed_changes(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    """The figures timed at the same size in both results whose spreads do not overlap, in words:
    "at batch 32: 3.1× faster -> no clear difference (1.02×)"."""
    before, after = speed_figures(old), speed_figures(new)
    moved = []
    for key, b in after.items():
        a = before.get(key)
        if a is None or spreads_overlap(a, b):
            continue
        words = [speed_mark(f["verdict"], f["ratio"]) + (f" ({f['ratio']:.2f}×)" if f["verdict"] == SPEED_UNCLEAR
                                                         else "") for f in (a, b)]
        moved.append(f"at {speed_size(b['size'], b.get('batch'))}: {words[0]} -> {words[1]}")
    return tuple(moved)


# a cell whose new record lost the speed figures its old one had (the gate's report; the page compares torch versions
# measured with and without --speed, where that is no change)
FIGURES_GONE = "figures gone: the new record was measured without the speed pass"


def figures_gone(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether ``old`` has speed figures and ``new``, still supported, has none."""
    return bool(speed_figures(old)) and not speed_figures(new) and new.get("status") in SUPPORTED


def _results(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["name"]: case.get("results", {}) for case in snapshot.get("cases", [])}


def _names(case: dict[str, Any]) -> set[str]:
    """Every public name of the object a case calls (its ref and aliases); empty without a ref."""
    return {case["ref"], *case.get("aliases", ())} if case.get("ref") else set()


def renamed(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """old name -> new name, for each case only the old snapshot names whose one counterpart among the cases only
    the new snapshot names calls the same object (a shared public name) with the same variant and origin."""
    new_names = {c["name"] for c in new.get("cases", [])}
    old_names = {c["name"] for c in old.get("cases", [])}
    gone = [c for c in old.get("cases", []) if c["name"] not in new_names]
    added = [c for c in new.get("cases", []) if c["name"] not in old_names]

    def same_object(a: dict[str, Any], b: dict[str, Any]) -> bool:
        return bool(_names(a) & _names(b)) and (a.get("variant"), a.get("origin")) == (b.get("variant"), b.get("origin"))

    pairs: dict[str, str] = {}
    for before in gone:
        matches = [after for after in added if same_object(before, after)]
        if len(matches) == 1 and sum(same_object(other, matches[0]) for other in gone) == 1:
            pairs[before["name"]] = matches[0]["name"]
    return pairs


def _as_named_in(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with its renamed cases under their new names (:func:`renamed`)."""
    pairs = renamed(old, new)
    if not pairs:
        return old
    cases = [dict(c, name=pairs[c["name"]]) if c["name"] in pairs else c for c in old.get("cases", [])]
    return dict(old, cases=cases)


def _ordered_names(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    names = [c["name"] for c in new.get("cases", [])]
    seen = set(names)
    return names + [c["name"] for c in old.get("cases", []) if c["name"] not in seen]


def _unmeasured(snapshot: dict[str, Any]) -> set[tuple[str, str]]:
    """(case, device) cells an incomplete snapshot lists without results for a device it probed."""
    if snapshot.get("complete", True) is not False:
        return set()
    devices = snapshot.get("environments", {})
    return {(case["name"], device) for case in snapshot.get("cases", []) for device in devices
            if device not in case.get("results", {})}


def compared_devices(old: dict[str, Any], new: dict[str, Any], devices: Iterable[str] | None) -> list[str]:
    """``devices``, or every device either snapshot probed, in the vocabulary's order."""
    if devices is not None:
        return list(devices)
    present = set(old.get("environments", {})) | set(new.get("environments", {}))
    return [d for d in DEVICES if d in present]


def not_compared(old: dict[str, Any], new: dict[str, Any],
                 devices: Iterable[str] | None = None) -> set[tuple[str, str]]:
    """The (case, device) cells :func:`compare` leaves out: those an incomplete snapshot (a shard part) lists
    but did not measure, while the other snapshot has results for them."""
    old = _as_named_in(old, new)
    wanted = set(compared_devices(old, new, devices))
    old_results, new_results = _results(old), _results(new)
    left_out = set()
    for side, other in ((_unmeasured(old), new_results), (_unmeasured(new), old_results)):
        left_out |= {(name, device) for name, device in side
                     if device in wanted and device in other.get(name, {})}
    return left_out


def eager_not_compared(old: dict[str, Any], new: dict[str, Any],
                       devices: Iterable[str] | None = None) -> list[EagerPair]:
    """The cells whose eager digests ``compare(eager=True)`` leaves out: computed on different machines or by
    different torch versions (:func:`.eager_change.unpaired_line` words them)."""
    named = _as_named_in(old, new)
    return eager_change.unpaired(named, new, compared_devices(named, new, devices))


def compare(old: dict[str, Any], new: dict[str, Any], devices: Iterable[str] | None = None,
            rules: Iterable[str] = (), vanished: bool = False, eager: bool = False) -> list[Change]:
    """Every difference between ``old`` and ``new``, in the new snapshot's case order.

    ``rules``: the gate's rules that apply (:data:`GATE_RULES`; none for the page).
    ``vanished``: a supported cell that lost its speed figures is a change (:data:`FIGURES_GONE`; the gate's), and
    one that lost a dynamic-batch result that held a regression under :data:`DYNAMIC_LOST` (a change without it).
    ``eager``: a cell whose eager output digest moved on the same machine and torch is a change (path
    STAGE_EAGER; a regression under the rule :data:`EAGER_MOVED`); the gate's, never the page's.

    ``devices`` limits the comparison (default: every device either snapshot
    probed). A device only one snapshot probed shows up as changes from or to
    ``None``, never as regressions. Cells an incomplete snapshot did not
    measure are left out (:func:`not_compared`). A renamed case is compared under its new name (:func:`renamed`).
    """
    old = _as_named_in(old, new)
    rules = tuple(rules)
    old_results, new_results = _results(old), _results(new)
    old_code, new_code = code_by_case(old), code_by_case(new)
    devices = compared_devices(old, new, devices)
    unmeasured = _unmeasured(old) | _unmeasured(new)
    digests = (eager_change.digests(old), eager_change.digests(new)) if eager else None
    changes: list[Change] = []
    for name in _ordered_names(old, new):
        for device in devices:
            before = old_results.get(name, {}).get(device)
            after = new_results.get(name, {}).get(device)
            if (before is None and after is None) or (name, device) in unmeasured:
                continue
            code = code_delta(old_code.get(name, {}).get(device), new_code.get(name, {}).get(device))
            for path in PATHS:
                a = (before or {}).get(path) or {}
                b = (after or {}).get(path) or {}
                old_status, new_status = a.get("status"), b.get("status")
                old_breaks, new_breaks = int(a.get("graph_breaks", 0)), int(b.get("graph_breaks", 0))
                old_dynamic, new_dynamic = _dynamic_status(a), _dynamic_status(b)
                dynamic_kind = classify_dynamic(old_dynamic, new_dynamic)
                if dynamic_kind is None and vanished and dynamic_gone(old_dynamic, new_dynamic, new_status):
                    dynamic_kind = "regressed" if DYNAMIC_LOST in rules else "changed"
                status_kind = (None if old_status == new_status and old_breaks == new_breaks
                               else classify(old_status, new_status))
                rule = ""
                if status_kind == "changed":
                    kind, rule = compile_first(path, a, b, rules)
                    status_kind = kind or status_kind
                speed = speed_changes(a, b) + ((FIGURES_GONE,) if vanished and figures_gone(a, b) else ())
                if status_kind is None and dynamic_kind is None and not speed:
                    continue
                extra: dict[str, Any] = {"speed": speed, "rule": rule}
                if not rule and dynamic_kind == "regressed" and new_dynamic is None:
                    extra["rule"] = DYNAMIC_LOST
                extra.update(code=code, where=failure_where(worse(status_kind, dynamic_kind), a, b,
                                                            status_kind is not None, dynamic_kind is not None))
                if dynamic_kind is not None:
                    extra.update(old_dynamic=old_dynamic, new_dynamic=new_dynamic,
                                 new_dynamic_detail=(b.get("dynamic") or {}).get("detail", ""))
                changes.append(Change(name, device, path, old_status, new_status,
                                      worse(status_kind, dynamic_kind), a.get("detail", ""),
                                      b.get("detail", ""), old_breaks, new_breaks, **extra))
            cell = eager_change.pair(*digests, name, device) if digests else None
            if cell is not None and cell.moved:
                rule = EAGER_MOVED if EAGER_MOVED in rules else ""
                changes.append(Change(name, device, STAGE_EAGER, None, None, "regressed" if rule else "changed",
                                      rule=rule, eager=cell, code=code))
    return changes


def count(changes: Iterable[Change]) -> dict[str, int]:
    counts = Counter(change.kind for change in changes)
    return {kind: counts.get(kind, 0) for kind in KINDS}


def regressed(changes: Iterable[Change]) -> bool:
    return any(change.kind == "regressed" for change in changes)
