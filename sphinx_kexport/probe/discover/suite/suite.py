"""Cases from a library's own test suite: ``cases_from_tests("kornia", "tests")``.

The library's pytest tests under a path run in this process (discover/suite/suite_run.py)
while the recorder stands in for the package's public callables; each call a
test's own code makes with a tensor argument (or on an object holding tensors, or with plain Python values
only: call_replay.probed_call) is a candidate, and up to
``per_operator`` configurations of each operator become cases
(discover/suite/suite_cases.py). :func:`discover_suite` also says, per test, why it
yields nothing: no public tensor call, its calls repeat configurations already
kept, its calls ran the test's unittest.mock stand-ins, its calls do not run
outside it, the test failed, it fails only under the recorder, it needs the
network, it needs CUDA, it ran past its time limit, pytest skipped it, it is
parametrised with (or its calls ran in) another dtype, its file does not import,
its calls' tensors are too large to keep (discover/suite/suite_copies.py bounds what the
recorder copies of each test).

Determinism: pytest runs the tests in its fixed order, each from the same seed,
and the configurations are kept first come, so every process gets the same
names, inputs and fingerprints. The result is stored in the discovery cache
(discover/cache.py) under a key that also covers the tests' sources.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager, Iterable

from ...base.memory import status_kb
from ..cache import DiscoveryCache, digest_files, Stored, cache_dir, last_stored, refreshing
from ..recording.call_replay import UnsupportedCall, probed_call
from ..recording.recording import RECORDER, Call, NotCopied, Uncopied, recording
from ..docstrings.docstrings import discovered_cases_left_out
from ..focus import focused_cases
from ..library import (DiscoveryError, ObjectReport, as_written, callable_patterns, chosen_tests, find_aliases,
                      library_objects, place, random_state_kept, recorded_callables, selected, Switch)
from ..progress import OnExample, reporter, whole_line
from ....snapshot.vocabulary import NOT_DESCRIBED
from ..docstrings import without_cases
from .suite_cases import Selection, build_suite_case, configuration, other_dtype, outside_its_test
from .suite_copies import AGAIN, CopyBudget, Skip, covered
from ...base.code_digest import CodePlaces
from .suite_records import DIGEST_STORE, ROOT_MARKERS, Digests, SuiteRecords, build_records, changes, config_root, places_for
from .suite_run import SHARED, NodeRun, NodeSource, SuiteError, SuiteRun, library_roots, run_suite, suite_roots
from .suite_shards import deal, run_in_children, shard_count, suite_jobs, tell_parent
from ...measure.code_watch import CodeWatch
from ...measure.locate import NO_LIBRARY, library_root
from ...cases.fingerprint import definition_or_why
from ...cases.inventory import SuiteRef
from ...cases.registry import CaseSpec
from ...cases.build_marks import case_built, discovery_began
from ....snapshot.vocabulary import NO_CASE_KINDS

DEFAULT_PER_OPERATOR = 3
# seconds of CPU time per phase of a test, counted from its last call of a new configuration. Lower than a
# docstring example's 60: a test past it keeps the calls it made before, and the tests that run longer check
# statistics after their calls (of kornia's 10,899 tests under the recorder one ran over 10 s, a gradcheck
# that yields no case; e3nn's o3 tests give the same 89 cases at 10 as at 60, in half the time)
DEFAULT_TEST_TIME_LIMIT = 10.0


@dataclass
class NodeReport:
    """One test (one parametrisation): the cases it yields, or why none."""

    ref: str  # the test's node id (the discovery cache and the progress lines read a report's ``ref``)
    cases: list[CaseSpec] = field(default_factory=list)
    skip: str = ""  # a key of progress.TEST_WORDS when it yields no case
    detail: str = ""
    dropped: list[str] = field(default_factory=list)  # calls that could not become cases, with why
    seconds: float = 0.0
    covered: int = 0  # calls whose configuration was kept already
    peak_kb: int = 0  # the most memory the process that ran it held meanwhile, KiB (0: unknown)
    take: Any = field(default=None, repr=False, compare=False)  # its Take, without cases, in the discovery cache
    # in the discovery cache: how many of its last cases are calls the selection did not keep, which a rerun whose
    # other files changed may (no case of this run; the cache names them by place, never by a name of theirs)
    unkept: int = 0
    from_tests = True  # how progress lines tell it from a docstring example's report

    @property
    def file(self) -> str:
        return self.ref.split("::", 1)[0]


@dataclass
class SuiteDiscovery:
    package: str
    tests: str  # the tests' path, absolute
    reports: list[NodeReport]  # in the order pytest reported them
    seconds: float
    cache: str = ""  # how the discovery cache was used, said to people
    tests_run: int = 0  # tests this call ran (0 when every report came from the cache)
    # public modules that do not import or whose __all__ is wrong, and the testing helpers left out
    import_failures: list[ObjectReport] = field(default_factory=list)

    @property
    def cases(self) -> list[CaseSpec]:
        return [spec for report in self.reports for spec in report.cases]

    def skipped(self) -> Counter[str]:
        return Counter(report.skip for report in self.reports if report.skip)

    def files(self) -> dict[str, list[NodeReport]]:
        """The reports of each test file, files in the order they first ran."""
        found: dict[str, list[NodeReport]] = {}
        for report in self.reports:
            found.setdefault(report.file, []).append(report)
        return found


def suite_path(tests: str | os.PathLike[str]) -> Path:
    """The tests' path, absolute; DiscoveryError when it does not exist."""
    path = Path(tests).expanduser()
    # resolved: `tests/o3`, `./tests/o3`, `../e3nn/tests/o3` and the absolute path (through a link or not) are
    # one suite, with one discovery cache entry
    absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
    if not absolute.exists():
        where = "" if path.is_absolute() else f" (a relative path is read from the current directory, {Path.cwd()})"
        raise DiscoveryError(f"the tests path {str(tests)!r} does not exist{where}. Give the folder (or file) of the "
                             "library's pytest tests, e.g. cases_from_tests('kornia', 'tests') or "
                             "`discover kornia --tests tests`.")
    return absolute


def suite_config_digest(path: Path) -> str:
    """sha256 of the pytest configuration files of the folders at and above the tests, up to the first that
    holds one (pytest's rootdir, as a rule). The .py files are not in it: each test file's record says what
    it depends on (discover/suite/suite_records.py)."""
    folder, top = (path if path.is_dir() else path.parent), config_root(path)
    files = [parent / name for parent in [folder, *folder.parents] if parent == top or top in parent.parents
             for name in ROOT_MARKERS if (parent / name).is_file()]
    return digest_files(sorted(set(files)), Path(folder.anchor))


def _open_cache(package: str, path: Path, include: list[str], exclude: list[str], time_limit: float,
                per_operator: int) -> DiscoveryCache | None:
    extra = {"tests": str(path), "per_operator": per_operator, "tests_config": suite_config_digest(path)}
    return DiscoveryCache.open(package, include, exclude, time_limit, entry="suite/suite.py", extra=extra,
                               per_example=True)


def _slot(spec: CaseSpec) -> str:
    """How a case is found again when its test runs again (a cache entry whose cases do not pickle)."""
    ref = spec.discovery
    assert isinstance(ref, SuiteRef)
    return json.dumps([spec.name, ref.call_ref, ref.occurrence, ref.rootdir])


@dataclass(frozen=True)
class Unkept:
    """:attr:`Candidate.stored` of a call whose case the selection did not keep, stored for a rerun that may:
    its place among its test's unkept cases (:attr:`NodeReport.unkept`)."""

    place: int


# Call.not_copied of a call the test's file covers, and of one that passes nothing the probe can take as a graph
# input (an array, an object): neither is said again
WATCHED = NotCopied(Uncopied.WATCHED, "its configuration is kept already")
NOT_PROBED = NotCopied(Uncopied.NO_GRAPH_INPUT, "no graph input")

# (case name, call ref, occurrence) to build again, per node id
Rebuild = dict[str, list[tuple[str, str, int]]]


@dataclass
class Candidate:
    """A call of a test that its shard did not find covered: its configuration and what became of it there."""

    ref: str
    key: tuple | None  # None: a call dropped before its configuration counts (raised, unsupported arguments)
    occurrence: int
    spec: CaseSpec | None = None  # the case, named in its shard (renamed when the selection keeps it)
    dropped: str = ""  # why it could not become a case
    outside: str = ""  # why it does not run outside its test
    rebuild: bool = False  # the case did not pickle out of its shard: the test runs again for it
    # the name its case has in the discovery cache, or its place among those not kept ("": not stored; kept
    # later, it is rebuilt)
    stored: str | Unkept = ""
    large: bool = False  # dropped because its tensors were too large to keep (suite_copies.py)
    undescribed: bool = False  # dropped because the probe cannot describe its case (cases/describe.py)


@dataclass
class Take:
    """One test's run as its shard saw it, before the selection across the suite decides which calls are
    cases: a run in shards (discover/suite/suite_shards.py) takes in child processes and selects here, in the order
    pytest reported the tests, so that it keeps exactly the cases one run in a row keeps."""

    run: NodeRun  # its calls dropped
    candidates: list[Candidate] = field(default_factory=list)
    called: list[str] = field(default_factory=list)  # the refs of the package it called, as written
    left_out: set[str] = field(default_factory=set)
    passed_over: list[str] = field(default_factory=list)
    covered: int = 0  # calls of configurations kept already in its shard (kept already in the suite, then)
    mocked: list[str] = field(default_factory=list)
    dtype: list[str] = field(default_factory=list)
    rebuilt: list[CaseSpec] = field(default_factory=list)  # a rebuild's cases, by their own names


class _Taker:
    """Turns each finished test's calls into :class:`Take` s (``on_test`` of the suite run), and, unless it
    runs in a shard, selects their cases at once (:class:`_Selector`)."""

    def __init__(self, package: str, path: Path, include: list[str], exclude: list[str], time_limit: float,
                 per_operator: int, aliases: dict[str, list[str]], rebuild: Rebuild | None,
                 on_test: OnExample | None, selector: "_Selector | None"):
        self.package, self.path, self.include, self.exclude = package, path, include, exclude
        # the callables whose calls count (include / exclude may also name test files: run_suite's)
        self.calls_in, self.calls_out = callable_patterns(include), callable_patterns(exclude)
        self.time_limit, self.per_operator, self.aliases = time_limit, per_operator, aliases
        # what this process need not record or build again, per test file: a file's calls are its own whatever
        # the other files call, so that a rerun may keep them (the selection across files is _Selector's)
        self.selections: dict[str, Selection] = {}
        self.selection = Selection(per_operator)
        self.rebuild = rebuild
        self.on_test = on_test
        self.selector = selector
        # a shard's progress lines read as a run in a row's: its tests' cases selected within the shard
        self.line_selector = selector or _Selector(package, per_operator)
        self.takes: dict[str, Take] = {}
        self.reports: dict[str, NodeReport] = {}  # selected here (not in a shard)
        self._texts: dict[str, str] = {}
        self.passed_over: list[str] = []  # refs of this test's calls not recorded: left out, or covered already
        self.covered = 0
        self.other_dtype: dict[str, None] = {}  # this test's calls not recorded for their dtype, with why (once each)
        self.copies = CopyBudget(per_operator)  # what the recorder copies of this test's calls

    def begin(self, nodeid: str) -> None:
        """A test begins: its file's selection is the one its calls are checked against."""
        self.selection = self.selections.setdefault(nodeid.split("::", 1)[0], Selection(self.per_operator))
        self.copies.begin()

    def wants(self, ref: str, callee: Any, args: tuple, kwargs: dict[str, Any]) -> bool | str:
        """The recorder's filter, before it copies anything: a call outside the package, left out by include /
        exclude, a repeat within its test, or of a configuration kept already is not copied, nor one too large
        to keep (suite_copies.py; ``_take`` still says so)."""
        if not ref.startswith(self.package + "."):
            return self.rebuild is not None  # built again: the asked-for calls are found by their occurrence
        if not selected(ref, self.calls_in, self.calls_out):
            self.passed_over.append(ref)
            return self.rebuild is not None
        dtype = other_dtype(args, kwargs)
        if dtype:
            self.other_dtype[f"{ref} {dtype}"] = None
            return self.rebuild is not None
        probe = Call(ref, callee, args, kwargs, 0, None)
        recorded = RECORDER.calls if RECORDER.calls is not None else []
        try:
            key = configuration(probe)
        except UnsupportedCall as exc:  # no case: recorded without copies (raised or not), its repeats not at all
            why = NotCopied(Uncopied.UNSUPPORTED, str(exc)) if probed_call(probe) else NOT_PROBED
            verdict = self.copies.no_case(ref, why, recorded)
            return False if verdict is AGAIN else verdict
        except Exception:  # recorded: _take says why it is no case
            return True
        # a rebuild meets the test's calls as its discovery did: the asked-for calls were copied then, and are now
        verdict = self.copies.verdict(ref, key, probe, recorded)
        if isinstance(verdict, Skip):  # a repeat is counted as covered once its test's calls are cases
            return False
        if verdict is not None or self.rebuild is not None:
            return verdict or True  # too large: recorded without its tensors, and said
        if self.selection.why_not(ref, key):
            self.passed_over.append(ref)
            self.covered += 1
            return WATCHED  # not copied; recorded, so that whether it raises decides whether its repeats are
        return True

    def __call__(self, run: NodeRun, source: NodeSource, done: int, total: int) -> None:
        take = self.takes[run.nodeid] = Take(NodeRun(run.nodeid, run.kind, run.detail, seconds=run.seconds))
        take.passed_over, take.covered, take.dtype = self.passed_over, self.covered, list(self.other_dtype)
        self.passed_over, self.covered, self.other_dtype = [], 0, {}
        try:
            if not run.kind or _stopped(run.kind):  # a test stopped at its time limit yields its calls so far
                self._take(run, source, take)
        except Exception as exc:  # said, not hidden; the other tests go on
            take.candidates, take.rebuilt = [], []
            take.run.kind = "failed"
            take.run.detail = f"turning its calls into cases failed: {type(exc).__name__}: {exc}"
        take.run.peak_kb = status_kb("VmHWM")  # since the test began (SuitePlugin): its run and its cases' building
        report = self.line_selector.report(take)
        if self.selector is not None:
            self.reports[run.nodeid] = report
        if self.on_test is not None:
            self.on_test(done, total, report, run.seconds)

    def _text(self, filename: str) -> str:
        if filename not in self._texts:
            try:
                self._texts[filename] = Path(filename).read_text(encoding="utf-8")
            except OSError:
                self._texts[filename] = ""
        return self._texts[filename]

    def _ref(self, source: NodeSource, call: Call, occurrence: int) -> SuiteRef:
        return SuiteRef(self.package, str(self.path), tuple(self.include), tuple(self.exclude),
                        float(self.time_limit), self.per_operator, source.rootdir, source.nodeid, call.ref,
                        occurrence)

    def _build(self, call: Call, name: str, source: NodeSource, occurrence: int) -> CaseSpec:
        group, section = place(call.ref, self.package)
        return build_suite_case(call, name=name, package=group, section=section, source=source,
                               ref=self._ref(source, call, occurrence))

    def _take(self, run: NodeRun, source: NodeSource, take: Take) -> None:
        calls: list[tuple[Call, int]] = []
        for call in run.calls:
            if not call.ref.startswith(self.package + "."):
                continue
            calls.append((call, call.occurrence))  # counted by the recorder under the canonical ref
            call.ref = as_written(call.ref, self.aliases, self._text(call.filename))
        if self.rebuild is not None:  # built again: exactly the asked-for calls, under their names
            for name, ref, occurrence in self.rebuild.get(run.nodeid, []):
                call = next((c for c, o in calls if c.ref == ref and o == occurrence and c.not_copied is None), None)
                if call is not None:
                    take.rebuilt.append(self._build(call, name, source, occurrence))
            return
        take.called = sorted({c.ref for c, _ in calls})
        take.left_out = {ref for ref in take.passed_over if not selected(ref, self.calls_in, self.calls_out)}
        mocked: dict[str, None] = {}  # once each, in order: a test may call the same way in a loop
        repeats = self.copies.repeats(run.calls)
        run.calls = []
        calls.reverse()
        while calls:  # each call's copies are let go as soon as it is done with
            call, occurrence = calls.pop()
            if not selected(call.ref, self.calls_in, self.calls_out):
                take.left_out.add(call.ref)
                continue
            uncopied = call.not_copied
            if uncopied is not None and uncopied.kind in (Uncopied.WATCHED, Uncopied.NO_GRAPH_INPUT):
                continue  # covered (counted as it was made), or no graph input
            if uncopied is not None and not call.raised and not call.stand_ins:  # too large, or arguments unbound
                take.candidates.append(Candidate(call.ref, None, occurrence, dropped=f"{call.ref}: {uncopied.reason}",
                                                 large=uncopied.kind is Uncopied.TOO_LARGE))
                continue
            if uncopied is None and not probed_call(call):
                continue  # e.g. a call with an array or an object: nothing the probe can pass as a graph input
            if call.raised:  # (one too large to keep too: said as raised)
                take.candidates.append(Candidate(call.ref, None, occurrence,
                                                 dropped=f"{call.ref} raised {call.raised} (the test caught it)"))
                continue
            if call.stand_ins:  # what it returned is the mock's
                mocked[f"{call.ref} ran the test's unittest.mock stand-in for {', '.join(call.stand_ins)}"] = None
                continue
            try:
                key = configuration(call)
            except UnsupportedCall as exc:
                take.candidates.append(Candidate(call.ref, None, occurrence, dropped=f"{call.ref}: {exc}"))
                continue
            if self.selection.why_not(call.ref, key):
                take.covered += 1
                continue
            name = self.selection.next_name(call.ref)
            candidate = Candidate(call.ref, key, occurrence)
            take.candidates.append(candidate)
            try:
                candidate.spec = self._build(call, name, source, occurrence)
            except UnsupportedCall as exc:
                candidate.dropped = f"{call.ref}: {exc}"
                continue
            except Exception as exc:  # e.g. case() refusing the target: said, not hidden
                candidate.dropped = f"{call.ref}: {type(exc).__name__}: {exc}"
                continue
            definition, why = definition_or_why(candidate.spec)
            if definition is None:  # left out here, named, rather than stopping the probe that reads it
                candidate.spec, candidate.dropped, candidate.undescribed = None, f"{call.ref}: {why}", True
                continue
            why = outside_its_test(candidate.spec, self.time_limit)
            if why:  # e.g. it worked only in a global mode the test set: not the operator's eager failure
                candidate.spec, candidate.outside = None, f"{call.ref} does not run outside its test: {why}"
                continue
            self.selection.keep(call.ref, key, name)
        take.mocked = list(mocked)
        repeated = covered(repeats, lambda ref: self.selection.kept.get(ref, {}), self.per_operator)
        take.covered += len(repeated)
        take.passed_over += repeated


def _stopped(kind: str) -> bool:
    """Whether a test with this outcome was stopped at its time limit: its calls until then are taken."""
    return kind == "time limit"


class _Selector:
    """The selection across the whole suite: each test's cases, in the order pytest reported the tests (the
    first ``per_operator`` configurations of each operator are kept, first come, named ``op[test]``,
    ``op[test 2]``, ...), or why it yields none."""

    def __init__(self, package: str, per_operator: int):
        self.package, self.per_operator = package, per_operator
        self.selection = Selection(per_operator)
        # kept cases that did not pickle out of their shard, to build again in this process:
        # (the report, the place of the case in it, the case's name, its call ref, occurrence)
        self.unpickled: list[tuple[NodeReport, int, str, str, int]] = []

    def report(self, take: Take) -> NodeReport:
        run = take.run
        report = NodeReport(run.nodeid, skip=run.kind, detail=run.detail, seconds=run.seconds, peak_kb=run.peak_kb)
        if run.kind and not _stopped(run.kind):  # its calls' repeats are not counted (a shard's count differs)
            return report
        report.skip, report.detail, report.covered = "", "", take.covered
        report.cases = list(take.rebuilt)
        outside: dict[str, None] = {}  # kept calls that do not run once the test has ended (once each)
        for candidate in take.candidates:
            if candidate.key is None:
                report.dropped.append(candidate.dropped)
            elif self.selection.why_not(candidate.ref, candidate.key):  # kept already by a test of another shard
                report.covered += 1
            elif candidate.dropped:
                report.dropped.append(candidate.dropped)
            elif candidate.outside:
                outside[candidate.outside] = None
            else:
                name = self.selection.next_name(candidate.ref)
                self.selection.keep(candidate.ref, candidate.key, name)
                if candidate.spec is None:  # built again once the shards are done (suite_shards)
                    self.unpickled.append((report, len(report.cases), name, candidate.ref, candidate.occurrence))
                else:
                    candidate.spec.name = candidate.stored = name
                    report.cases.append(candidate.spec)
                continue
            candidate.stored = ""  # not kept (the cache holds its case apart: a rerun may keep it)
        self._explain(take, report, outside, any(r is report for r, *_ in self.unpickled))
        if _stopped(run.kind):
            if report.skip:  # no case from what it called before: said as the time limit it ran past
                if report.skip == "too large":  # and its calls too large to keep, as dropped calls
                    report.dropped[:0] = [c.dropped for c in take.candidates if c.large]
                report.skip, report.detail = run.kind, run.detail
            else:
                report.dropped.append(f"the test was stopped: {run.detail}; its calls before are kept")
        return report

    def _explain(self, take: Take, report: NodeReport, outside: dict[str, None], unpickled: bool) -> None:
        """Why a test that made calls yields no case (or, beside its cases, which calls were dropped)."""
        mocked, dtype, left_out = take.mocked, take.dtype, take.left_out
        report.dropped.extend(mocked)
        if report.cases or unpickled:
            report.dropped.extend([*outside, *dtype])
            return
        large = [candidate.dropped for candidate in take.candidates if candidate.large]
        if outside:  # said once: in the reason, not again as dropped calls
            report.skip, report.detail = "outside its test", "; ".join(outside)
            report.dropped.extend(dtype)
        elif large:  # its calls that could have been cases were too large to keep (said once, in the reason)
            report.skip, report.detail = "too large", "; ".join(large)
            report.dropped = [dropped for dropped in report.dropped if dropped not in large] + dtype
        elif any(candidate.undescribed for candidate in take.candidates):
            report.skip, report.detail = NOT_DESCRIBED, "; ".join(report.dropped)
        elif dtype and not report.covered:  # e.g. a fixture set float64 as the default dtype
            report.skip, report.detail = "other dtype", "; ".join(dtype)
        elif report.covered:
            report.dropped.extend(dtype)
            report.skip = "covered"
            covered = sorted(set(take.called) | (set(take.passed_over) - left_out))
            report.detail = (f"{report.covered} call{'s' if report.covered != 1 else ''} of "
                             f"{', '.join(covered)} (per_operator={self.per_operator})")
        elif mocked and len(report.dropped) == len(mocked):
            report.skip, report.detail = "mocked", "; ".join(mocked)  # every call it made ran a mock
        else:
            report.skip = "no tensor call"
            called = take.called
            report.detail = ("; ".join(report.dropped) if report.dropped
                             else "calls " + ", ".join(called) + " with neither a tensor nor plain Python values only" if called
                             else f"calls only {', '.join(sorted(left_out))}, which include/exclude leave out"
                             if left_out
                             else f"the test's own code calls no public callable of {self.package} (outside "
                                  "pytest.raises)")


# (package, the tests' path, include, exclude, time_limit, per_operator): what every run of one discovery shares
Arguments = tuple[str, Path, list[str], list[str], float, int]


@dataclass
class _Ran:
    """A discovery's run of the suite: the reports in pytest's order, each test's take (for the cache), and the
    code each test file ran (by the watch's context: a test file's node id part, or SHARED)."""

    reports: list[NodeReport]
    failures: list[ObjectReport]
    rootdir: str
    takes: dict[str, Take]
    code: dict[str, dict[str, str]] | None  # None: not watched
    tests_run: int


def _run(package: str, path: Path, include: list[str], exclude: list[str], time_limit: float, per_operator: int,
         targets: list[str] | None = None, rebuild: Rebuild | None = None, on_test: OnExample | None = None
         ) -> tuple[list[NodeReport], list[ObjectReport]]:
    """(the reports of the tests of ``targets`` run in this process, in the order pytest reported them; the
    public modules that do not import): ``rebuild`` names the cases to build again."""
    selector = _Selector(package, per_operator)
    taker, suite, failures, _ = _run_here(package, path, include, exclude, time_limit, per_operator, targets,
                                          rebuild, on_test, selector)
    reports = [taker.reports.get(run.nodeid) or NodeReport(run.nodeid, skip=run.kind, detail=run.detail)
               for run in suite.runs]
    return reports, failures


def _run_here(package: str, path: Path, include: list[str], exclude: list[str], time_limit: float,
              per_operator: int, targets: list[str] | None, rebuild: Rebuild | None, on_test: OnExample | None,
              selector: _Selector | None, only: set[str] | None = None, collect_only: bool = False,
              watched: bool = False) -> tuple[_Taker, SuiteRun, list[ObjectReport], dict[str, dict[str, str]] | None]:
    """The tests run in this process under the recorder (a shard's when ``selector`` is None); with ``watched``,
    the code each test file ran too (None when not watched)."""
    top = package.split(".")[0]
    modules, objects, failures = library_objects(package, include, exclude)
    functions, module_classes, method_classes = recorded_callables(objects)
    taker = _Taker(package, path, include, exclude, time_limit, per_operator, find_aliases(modules, objects), rebuild,
                   on_test, selector)
    watch = _watch(package, path) if watched else None
    with recording(functions, module_classes, top, method_classes):
        try:
            suite = run_suite(targets or [str(path)], suite_roots(path), library_roots(top), time_limit, taker,
                              taker.wants, only=only, collect_only=collect_only, watch=watch, on_begin=taker.begin,
                              chosen=chosen_tests(include, exclude))
        except SuiteError as exc:
            raise DiscoveryError(str(exc)) from None
    return taker, suite, failures, watch.code_by_context() if watch is not None else None


def _places(package: str, path: Path) -> CodePlaces | None:
    """Where the suite's code refs point (None: the library's folder is not found)."""
    top = package.split(".")[0]
    root = library_root(top)
    return None if root is NO_LIBRARY else places_for(top, root.directory, path)


def _watch(package: str, path: Path) -> CodeWatch | None:
    """A watch on the library's and the project's code (the tests, their helpers); None when the library's folder
    is not found (then a change to the library runs every test file again)."""
    places = _places(package, path)
    return None if places is None else CodeWatch(places, [places.library_dir, places.root])


def _collected(package: str, path: Path, include: list[str], exclude: list[str], time_limit: float,
               per_operator: int) -> tuple[SuiteRun, list[ObjectReport]]:
    """A child's entry: the suite collected as a run in a row collects it (the tests that run, in order; the
    files that do not import and the tests deselected, as runs)."""
    _, suite, failures, _ = _run_here(package, path, include, exclude, time_limit, per_operator, None, None, None,
                                      None, collect_only=True)
    return suite, failures


def _shard(package: str, path: Path, include: list[str], exclude: list[str], time_limit: float, per_operator: int,
           only: list[str], watched: bool = False) -> tuple[list[Take], dict[str, dict[str, str]] | None]:
    """A child's entry: the takes of one shard's tests, in the order they ran, and the code each test file ran.
    A case that does not pickle is sent without its case (``Candidate.spec`` None): the parent builds it again
    if the selection keeps it."""
    import pickle

    taker, _, _, code = _run_here(package, path, include, exclude, time_limit, per_operator, None, None, tell_parent,
                                  None, only=set(only), watched=watched)
    takes = list(taker.takes.values())  # the tests that ran: this shard's
    for take in takes:
        for candidate in take.candidates:
            if candidate.spec is not None:
                try:
                    pickle.dumps(candidate.spec)
                except Exception:
                    candidate.spec, candidate.rebuild = None, True
    return takes, code


def _merged(parts: list[dict[str, dict[str, str]] | None]) -> dict[str, dict[str, str]] | None:
    """The code by context of several runs (shards) together; None when one was not watched."""
    if any(part is None for part in parts):
        return None
    merged: dict[str, dict[str, str]] = {}
    for part in parts:
        for context, code in (part or {}).items():
            merged.setdefault(context, {}).update(code)
    return merged


def _run_all(arguments: Arguments, on_test: OnExample | None, jobs: int, watched: bool) -> _Ran:
    """Every test runs: in this process, its cases selected as each test ends, or (``jobs`` over 1) in shards."""
    if jobs > 1:
        [(collected, failures)] = run_in_children(_collected, [arguments], 1, 0, None)
        return _run_nodes(arguments, collected, failures, collected.nodes, {}, on_test, jobs, watched)
    package, per_operator = arguments[0], arguments[5]
    selector = _Selector(package, per_operator)
    taker, suite, failures, code = _run_here(*arguments, None, None, on_test, selector, watched=watched)
    reports = [taker.reports.get(run.nodeid) or NodeReport(run.nodeid, skip=run.kind, detail=run.detail)
               for run in suite.runs]
    return _Ran(reports, failures, suite.rootdir, taker.takes, code, len(taker.takes))


def _run_nodes(arguments: Arguments, collected: SuiteRun, failures: list[ObjectReport], nodes: list[str],
               cached: dict[str, Take], on_test: OnExample | None, jobs: int, watched: bool) -> _Ran:
    """The tests ``nodes`` of the suite ``collected`` run (in shards with ``jobs`` over 1, else here, none of the
    others; here too when they are too few for two shards: a shard's start-up would cost more than they do);
    with the ``cached`` takes of the others, the cases are selected across the suite in pytest's order, as a
    run in a row selects them."""
    takes: dict[str, Take] = dict(cached)
    code: dict[str, dict[str, str]] | None = {} if watched else None
    count = shard_count(len(nodes), jobs) if jobs > 1 else 1  # one job: in a row, here
    if nodes and count > 1:
        shards = deal(nodes, count)
        found = run_in_children(_shard, [(*arguments, shard, watched) for shard in shards], jobs, len(nodes),
                                on_test)
        takes.update((take.run.nodeid, take) for shard, _ in found for take in shard)
        code = _merged([part for _, part in found])
    elif nodes:
        taker, _, _, code = _run_here(*arguments, None, None, on_test, None, only=set(nodes), watched=watched)
        takes.update(taker.takes)
    runs = [*collected.runs, *(take.run for take in takes.values())]  # the files that did not import, deselected
    runs.sort(key=lambda run: collected.order.get(run.nodeid, -1))
    selector = _Selector(arguments[0], arguments[5])
    reports = [selector.report(takes.get(run.nodeid) or Take(run)) for run in runs]
    _build_unpickled(selector, collected.rootdir, arguments)
    return _Ran(reports, failures, collected.rootdir, takes, code, len(takes) - len(cached))


def _build_unpickled(selector: _Selector, rootdir: str, arguments: tuple[Any, ...]) -> None:
    """The kept cases that did not pickle out of their shard, or that no cached test made before, built here by
    running their tests again."""
    wanted: Rebuild = {}
    for report, _, name, ref, occurrence in selector.unpickled:
        wanted.setdefault(report.ref, []).append((name, ref, occurrence))
    if not wanted:
        return
    built, _ = _run(*arguments, targets=[f"{rootdir}{os.sep}{node}" for node in wanted], rebuild=wanted)
    specs = {spec.name: spec for report in built for spec in report.cases}
    for report, place_, name, _, _ in reversed(selector.unpickled):  # from the last, so the places hold
        if name in specs:
            report.cases.insert(place_, specs[name])


def _rerun(store: DiscoveryCache, stored: Stored, why: dict[str, str], arguments: Arguments,
           on_test: OnExample | None, jobs: int) -> tuple[_Ran, dict[str, str], int] | None:
    """The test files whose record changed (``why``: suite_records.changes), new ones, and those whose tests or
    cache entries are not what they were run again; the others' takes come from the cache. (the run, why each
    file ran again, how many tests of the others ran alone); None when the cache is unusable (then every test
    runs)."""
    records: SuiteRecords = stored.suite
    if jobs > 1:
        [(collected, failures)] = run_in_children(_collected, [arguments], 1, 0, None)
    else:
        collected, failures = _collected(*arguments)
    if collected.rootdir != records.rootdir:
        return None
    by_file: dict[str, list[str]] = {}
    for node in collected.nodes:
        by_file.setdefault(node.split("::", 1)[0], []).append(node)
    entries = {entry.name: entry for entry in stored.entries}
    again: dict[str, str] = {}
    cached: dict[str, Take] = {}
    alone: list[str] = []  # tests whose entries hold no calls (their cases do not pickle): they run, not their files
    for file, nodes in by_file.items():
        record = records.files.get(file)
        reason = why.get(SHARED) or why.get(file, "")
        if record is None:
            reason = "new"
        elif not reason and nodes != record.nodes:
            reason = "its tests are not the ones it had"
        if not reason:  # read before the recorder replaces the library's callables, which unpickling looks up
            reason, takes = _cached_takes(store, stored, entries, nodes)
            cached.update(takes)
            alone += [node for node in nodes if not reason and node not in takes]
        if reason:
            again[file] = reason
    nodes = [node for node in collected.nodes if node.split("::", 1)[0] in again or node in alone]
    return _run_nodes(arguments, collected, failures, nodes, cached, on_test, jobs, True), again, len(alone)


def _cached_takes(store: DiscoveryCache, stored: Stored, entries: dict[str, Any], nodes: list[str]
                  ) -> tuple[str, dict[str, Take]]:
    """("", the stored takes of one test file's tests, each candidate kept before with its case; a test whose
    cases do not pickle has none: it runs alone, its calls selected with the others' as a whole run would) or
    (why its tests run again, {})."""
    takes: dict[str, Take] = {}
    for node in nodes:
        entry = entries.get(node)
        if entry is None:
            return "its tests are not the ones it had", {}
        if not entry.stored:
            continue
        try:
            report = store.load_report(stored, entry)
        except Exception:  # a class it names moved or changed
            return "its cache entry does not load", {}
        take = report.take
        if take is None:
            return "its cache entry holds no calls", {}
        kept = len(report.cases) - report.unkept
        specs, unkept = {spec.name: spec for spec in report.cases[:kept]}, report.cases[kept:]
        for candidate in take.candidates:  # None: not stored before; if kept now, its test runs again
            stored_as = candidate.stored
            candidate.spec = unkept[stored_as.place] if isinstance(stored_as, Unkept) else specs.get(stored_as)
        takes[node] = take
    return "", takes


def _for_cache(ran: _Ran, per_operator: int) -> tuple[list[NodeReport], int]:
    """(the reports as the cache stores them: each with its take, without cases; its cases, then those of its
    calls the selection did not keep but a rerun whose other files changed may (counted in its ``unkept``, each
    candidate's ``stored`` an :class:`Unkept`); how many of those). A call that repeats the configuration of an earlier call of its own file, or of an operator with
    ``per_operator`` configurations in its file before it, is never a case, whatever the other files keep
    (what comes first in its file is kept before it, or covered by the same configuration): its case is not
    stored."""
    stored = []
    possible: dict[str, Selection] = {}  # per test file: the configurations that can be cases in it, in order
    count = 0
    for report in ran.reports:
        take = ran.takes.get(report.ref)
        if take is None:
            stored.append(report)
            continue
        in_file = possible.setdefault(report.file, Selection(per_operator))
        unkept = []
        for candidate in take.candidates:
            if candidate.key is None or candidate.dropped or candidate.outside:
                continue
            if in_file.why_not(candidate.ref, candidate.key):
                continue  # never a case (not kept now: its test runs again if a change ever made it one)
            in_file.keep(candidate.ref, candidate.key, "")
            if candidate.spec is not None and not candidate.stored and _pickles(candidate.spec):
                candidate.stored = Unkept(len(unkept))
                unkept.append(candidate.spec)
        count += len(unkept)
        stored.append(dataclasses.replace(report, cases=report.cases + unkept, unkept=len(unkept), take=dataclasses.replace(
            take, candidates=[dataclasses.replace(c, spec=None) for c in take.candidates], rebuilt=[])))
    return stored, count


def _pickles(spec: CaseSpec) -> bool:
    """Whether a case not kept can be stored: one that cannot must not keep its test's kept cases from the
    cache (a rerun that keeps it runs its test again)."""
    import pickle

    try:
        pickle.dumps(spec)
    except Exception:
        return False
    return True


def _kept_entry(entry: Any) -> Any:
    """A cache entry without the cases its selection did not keep (the cache stores them without a name)."""
    return dataclasses.replace(entry, cases=[case for case in entry.cases if case[0] is not None])


def _tests_by_file(ran: _Ran) -> dict[str, list[str]]:
    """Each test file the run saw (one that does not import too), with its tests that ran, in order."""
    files: dict[str, list[str]] = {}
    for report in ran.reports:
        files.setdefault(report.file, [])
        if report.ref in ran.takes:
            files[report.file].append(report.ref)
    return files


def _said_again(again: dict[str, str]) -> str:
    shown = [f"{file} ({why})" for file, why in list(again.items())[:5]]
    return "; ".join(shown) + (f"; and {len(again) - 5} more" if len(again) > 5 else "")


def discover_suite(package: str, tests: str | os.PathLike[str], *, include: Iterable[str] = (),
                   exclude: Iterable[str] = (), time_limit: float = DEFAULT_TEST_TIME_LIMIT,
                   per_operator: int = DEFAULT_PER_OPERATOR, on_test: OnExample | None = None,
                   jobs: int | None = None) -> SuiteDiscovery:
    """Run the pytest tests under ``tests`` and report, per test, its cases or why none.

    The result comes from the discovery cache when nothing it depends on changed; when the code some test
    files ran changed (or the files themselves, or their conftests), only those run again
    (discover/suite/suite_records.py), and the cases are the ones a run with an empty cache gives. Either way the
    global random state is left as it was.
    ``on_test(done, total, report, seconds)`` is called after each test that runs. ``jobs``: shards of the
    suite run at once in child processes (default: :func:`~.suite_shards.set_suite_jobs`'s, 1 unless the probe
    or ``discover --jobs`` set it; 1 runs the tests in this process, in a row); the cases are the same.
    """
    began = time.monotonic()
    include, exclude = list(include), list(exclude)
    if per_operator < 1:
        raise DiscoveryError(f"per_operator must be 1 or more, found {per_operator}")
    path = suite_path(tests)
    arguments: Arguments = (package, path, include, exclude, time_limit, per_operator)
    jobs = suite_jobs() if jobs is None else jobs
    with random_state_kept():
        store = _open_cache(package, path, include, exclude, time_limit, per_operator)
        places = _places(package, path)
        digests = Digests(places, str(store.directory / DIGEST_STORE)) if store is not None and places else None
        ran: _Ran | None = None
        again: dict[str, str] | None = None  # a rerun's test files run again, with why
        alone = 0  # a rerun's tests of the other files that ran (their cases do not pickle)
        stored = store.load() if store is not None and not refreshing() else None
        if stored is not None and isinstance(stored.suite, SuiteRecords) and digests is not None:
            why = changes(stored.suite, digests, path, stored.library_source == store.library_source)
            if not why:
                found = _from_cache(store, stored, package, path, include, exclude, time_limit, per_operator,
                                    began)
                if found is not None:
                    digests.save()
                    return found
            rerun = _rerun(store, stored, why, arguments, on_test, jobs)
            if rerun is not None:
                ran, again, alone = rerun
        if ran is None:
            ran = _run_all(arguments, on_test, jobs, watched=store is not None)
        seconds = time.monotonic() - began
        if store is None:
            note = ("discovery cache off" if cache_dir() is None
                    else f"not cached: the source of {package.split('.')[0]!r} was not found")
        else:
            records = None if digests is None else build_records(
                ran.rootdir, path, _tests_by_file(ran), ran.code, digests,
                stored.suite if again is not None else None, set(again) if again is not None else None)
            reports, unkept = _for_cache(ran, per_operator)
            kept = store.save(reports, ran.failures, seconds, _slot, suite=records)
            del reports
            if digests is not None:
                digests.save()
            files = len({report.file for report in ran.reports})
            if again is None:
                said = "ran the tests and stored them in"
            else:
                said = (f"ran again {len(again)} of {files} test file(s){': ' if again else ''}{_said_again(again)}"
                        + (f"; {alone} test(s) of the others ran alone (their cases do not pickle)" if alone else "")
                        + "; the others' calls came from")
            cases = sum(len(report.cases) for report in ran.reports)
            note = (f"{said} the discovery cache {store.path} ({store.size()}: {cases} case{'s' if cases != 1 else ''}"
                    f", and {unkept} more that a rerun may keep)") + (
                f" ({kept} test(s) will run again: their cases do not pickle)" if kept else "") + store.said_unused()
    tests_run = ran.tests_run if again is not None else sum(
        1 for r in ran.reports if r.skip not in ("other dtype", "file failed"))
    return SuiteDiscovery(package, str(path), ran.reports, seconds, note, tests_run, ran.failures)


def _from_cache(store: DiscoveryCache, stored: Stored, package: str, path: Path, include: list[str],
                exclude: list[str], time_limit: float, per_operator: int, began: float) -> SuiteDiscovery | None:
    """The stored discovery, running again only the tests whose cases did not pickle; None if it is unusable."""
    import pickle

    try:
        failures = pickle.loads(stored.failures)
        loaded = {i: store.load_report(stored, _kept_entry(e)) for i, e in enumerate(stored.entries) if e.stored}
    except Exception:  # a class it names moved or changed: run the tests (and store them again)
        return None
    for report in loaded.values():
        report.take, report.unkept = None, 0  # loaded without the cases it keeps for a rerun
    again = [e for e in stored.entries if not e.stored]
    rerun: dict[str, NodeReport] = {}
    if again:
        slots = {e.name: [json.loads(b) for b in e.bases] for e in again}
        rebuild = {node: [(name, ref, occurrence) for name, ref, occurrence, _ in found]
                   for node, found in slots.items()}
        targets = [f"{found[0][3]}{os.sep}{node}" for node, found in slots.items() if found]
        if len(targets) != len(again):  # a test whose kept cases pickle, but not its calls' others: its file runs
            return None
        try:
            reports, _ = _run(package, path, include, exclude, time_limit, per_operator, targets=targets,
                              rebuild=rebuild)
        except DiscoveryError:  # pytest finds one of those tests no more (its node id moved): run them all
            return None
        rerun = {r.ref: r for r in reports}
        if any(len(rerun.get(e.name, NodeReport("")).cases) != len(e.bases) for e in again):
            return None  # a test that made cases before makes others now: run them all
    reports = [loaded[i] if i in loaded else rerun[e.name] for i, e in enumerate(stored.entries)]
    note = (f"loaded from the discovery cache {store.path} ({store.size()}, made in {stored.seconds:.1f} s)"
            + (f"; ran again the {len(again)} test(s) whose cases do not pickle" if again else ""))
    return SuiteDiscovery(package, str(path), reports, time.monotonic() - began, note, len(again), failures)


def suite_case(ref: SuiteRef, name: str) -> CaseSpec | None:
    """The case ``name`` that ``ref``'s test made, built alone: unpickled from its discovery cache entry, or by
    running that one test again (its cases do not pickle, the entry cannot be read, or the cache holds no
    discovery for these arguments); never another test. None when that test no longer makes it."""
    include, exclude, path = list(ref.include), list(ref.exclude), suite_path(ref.tests)
    with random_state_kept():
        store = _open_cache(ref.package, path, include, exclude, ref.time_limit, ref.per_operator)
        stored = last_stored(store)  # a worker builds the cases of one suite in a row
        entry = next((e for e in stored.entries if e.name == ref.node), None) if stored is not None else None
        reports = None
        if store is not None and stored is not None and entry is not None and entry.stored:
            try:
                reports = [store.load_report(stored, entry, only=name)]
            except Exception:  # a class it names moved or changed: the test runs again
                reports = None
        if reports is None:
            try:
                reports, _ = _run(ref.package, path, include, exclude, ref.time_limit, ref.per_operator,
                                  targets=[f"{ref.rootdir}{os.sep}{ref.node}"],
                                  rebuild={ref.node: [(name, ref.call_ref, ref.occurrence)]})
            except DiscoveryError:  # pytest finds no such test now: the tests moved or changed
                return None
    return next((spec for report in reports for spec in report.cases if spec.name == name), None)


def suite_cases_left_out() -> ContextManager[None]:
    """While active, ``cases_from_tests`` returns no cases: ``discover`` loads the configured case modules for
    their hand-written and docstring cases only."""
    return _LEFT_OUT.turned_on()


_LEFT_OUT = Switch()


def cases_from_tests(package: str, tests: str | os.PathLike[str], *, include: Iterable[str] = (),
                     exclude: Iterable[str] = (), per_operator: int = DEFAULT_PER_OPERATOR,
                     time_limit: float = DEFAULT_TEST_TIME_LIMIT) -> list[CaseSpec]:
    """The cases recorded from the library's pytest tests under ``tests``:
    ``CASES = merge_cases(HAND, cases_from_docstrings("pkg") + cases_from_tests("pkg", "tests"))``.

    ``include`` / ``exclude``: dotted names, name prefixes or ``*`` patterns of the callables whose calls
    count; an entry with a ``/``, a ``::`` or ending in ``.py`` names test files or tests instead, by their
    path as ``discover --tests`` prints it or its last parts (``tests/nn/test_conv.py``, ``test_conv.py``,
    ``nn/``, ``test_conv.py::test_forward``, ``tests/nn/*``): only those tests run (include), or not
    (exclude). ``per_operator``: how many different configurations of one callable are kept. Run
    ``python -m sphinx_kexport.probe discover PACKAGE --tests PATH`` to see what each test yields and why some
    yield nothing.

    Cases are named ``op[test]``, ``op[test 2]``, ...; called once per test folder in one case module, a
    later call's case whose name an earlier call gave is qualified by its folder, relative to pytest's
    rootdir (``scale[test][tests/b]``). The library's testing helpers (a module named ``test``, ``tests``,
    ``testing``, ``test_utils`` or ``testing_utils``) are not recorded unless ``package`` or an ``include``
    entry names one; ``discover`` lists them. A case goes under the package and section of its object's
    first case of the best origin (hand-written, then docstring, then test), whose own place, if
    discovered, its ref says: the ref's module cut to as many levels as ``package`` has, two at least, and
    the next module as the section.
    """
    if discovered_cases_left_out() or _LEFT_OUT.active:
        return []
    focused = focused_cases(  # a worker rebuilds one case through its module: that case alone
        SuiteRef, lambda ref: (ref.package, ref.tests, ref.include, ref.exclude, ref.time_limit, ref.per_operator)
        == (package, str(suite_path(tests)), tuple(include), tuple(exclude), float(time_limit), per_operator),
        suite_case)
    if focused is not None:
        return focused
    discovery_began()  # what discovering runs is no one case's (measure/build_watch.py)
    found = discover_suite(package, tests, include=include, exclude=exclude, time_limit=time_limit,
                           per_operator=per_operator, on_test=reporter())
    if reporter() is not None and found.tests_run:  # a survey's inventory (its --dry-run too) says what ran and why
        whole_line(sys.stderr, f"  {package} tests: {found.cache}")
    for failure in found.import_failures:  # a module that cannot be read is listed in the snapshot with why
        if failure.skip in NO_CASE_KINDS:  # (the testing helpers left out are said by discover only)
            without_cases.note(failure.ref, place(failure.ref, package)[0], failure.skip, failure.detail)
    case_built(None)  # what discovering ran built no one case: its cache follows that code
    return found.cases
