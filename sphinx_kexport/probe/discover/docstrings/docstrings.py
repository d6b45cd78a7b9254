"""Cases from a library's own docstring examples: ``cases_from_docstrings("kornia.filters")``.

Every public object of the package and of its public submodules (functions,
classes, their methods) with a doctest example is run the way pytest's
doctest run would run it (the module's globals plus ``torch`` and the
top-level package, a fixed seed, output swallowed). Each call the example's
own code makes to a public function of the package, or to a module instance
of a public class, becomes a case when it passes a tensor, when it is a method of an object holding the
tensors (``q.inv()``), or when all its arguments are plain Python values (a factory such as
``create_meshgrid(4, 5)``): call_replay.probed_call.
:func:`discover` also says, per object, why an example yields nothing.

Determinism: objects run in the order of their dotted names, each example
from the same seed, so every process (the probe's workers import case modules
separately) gets the same names, inputs and fingerprints.
"""

from __future__ import annotations

import doctest
import gc
import hashlib
import os
import importlib
import importlib.util
import pickle
import sys
import time
import types
from collections import Counter
from dataclasses import dataclass
from typing import Any, ContextManager, Iterable

from ..recording.call_replay import UnsupportedCall, probed_call
from .docstring_cases import build_case
from .docstring_run import run_example
from ..focus import focused_cases
from ..recording.recording import recording
from ..cache import DiscoveryCache, Stored, cache_dir, last_stored, refreshing
from ...base.code_digest import CodeCheck, CodePlaces
from ...measure.code_watch import CodeWatch
from ...measure.locate import NO_LIBRARY, library_root
from ...cases.inventory import DiscoveryRef, repeat_key
from ...cases.registry import CaseSpec
from ...cases.build_marks import case_built, discovery_began
from ..library import (TESTING_HELPERS, ObjectReport, as_written, case_base_name, find_aliases, library_objects, place,
                      selected, random_state_kept, recorded_callables, Switch)
from . import without_cases
from ..progress import OnExample, reporter
from ....snapshot.vocabulary import NO_CASE_KINDS, NOT_DESCRIBED

DEFAULT_TIME_LIMIT = 60.0  # seconds per example
# why an object yields no case; "duplicate" (its cases repeat hand-written ones) and the testing helpers left out
# are said by `discover` only
SKIP_KINDS = (*NO_CASE_KINDS, "duplicate", TESTING_HELPERS)


@dataclass
class Discovery:
    package: str
    objects: list[ObjectReport]
    seconds: float
    cache: str = ""  # how the discovery cache was used, said to people
    examples_run: int = 0  # examples this call ran (0 when every report came from the cache)

    @property
    def cases(self) -> list[CaseSpec]:
        return [spec for report in self.objects for spec in report.cases]

    def skipped(self) -> Counter[str]:
        return Counter(report.skip for report in self.objects if report.skip)


def _examples(ref: str, obj: Any) -> tuple[list[doctest.DocTest], ObjectReport | None]:
    """(the object's examples, or a report saying why doctest cannot read them)."""
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    try:
        tests = finder.find(obj, name=ref, module=module if module is not None else False)
    except Exception as exc:
        if isinstance(exc, ValueError) and "of the docstring for" in str(exc):  # doctest's parser: "line 7 of
            # the docstring for X has inconsistent leading whitespace"
            return [], ObjectReport(ref, skip="unparsable", detail=str(exc).strip().splitlines()[0][:300])
        return [], None  # an object doctest cannot inspect (no source, a broken __wrapped__) has no examples
    return sorted((t for t in tests if t.examples), key=lambda t: t.name), None


def _globals(test: doctest.DocTest, top: str) -> dict[str, Any]:
    import torch

    module = sys.modules.get(test.globs.get("__name__", ""))
    globs = dict(vars(module)) if module is not None else dict(test.globs)  # read now: the proxies are in
    globs.setdefault("torch", torch)
    try:  # the usual doctest namespace (kornia's conftest, numpy's own) also offers numpy as np
        import numpy

        globs.setdefault("np", numpy)
    except ImportError:
        pass
    globs.setdefault(top, importlib.import_module(top))
    test.globs = globs
    return globs


def discover(package: str, *, include: Iterable[str] = (), exclude: Iterable[str] = (),
             time_limit: float = DEFAULT_TIME_LIMIT, on_example: OnExample | None = None) -> Discovery:
    """Run the docstring examples of ``package`` and report, per object, its cases or why none.

    The result comes from the discovery cache (:mod:`.discovery_cache`) when
    nothing it depends on changed; either way the global random state is left
    as it was, so code after the call sees the same random numbers.
    ``on_example(done, total, report, seconds)`` is called after each example that runs (none runs when
    the result comes from the cache).
    """
    began = time.monotonic()
    include, exclude = list(include), list(exclude)
    with random_state_kept():
        store = DiscoveryCache.open(package, include, exclude, time_limit, per_example=True)
        loaded: dict[str, ObjectReport] = {}
        if store is not None and not refreshing():
            stored = store.load()
            if stored is not None and stored.library_source == store.library_source:
                found = _from_cache(store, stored, package, include, exclude, time_limit, began)
                if found is not None:
                    return _without_repeats(found)
            elif stored is not None:  # the library changed: the examples that ran none of what changed are kept
                loaded = _unchanged_examples(store, stored, package.split(".")[0])
        reports, failures = _run(package, include, exclude, time_limit, on_example=on_example, loaded=loaded)
        _stamp(reports, package, include, exclude, time_limit)
        seconds = time.monotonic() - began
        if store is None:
            note = ("discovery cache off" if cache_dir() is None
                    else f"not cached: the source of {package.split('.')[0]!r} was not found")
        else:
            again = store.save(reports, failures, seconds, lambda spec: case_base_name(spec.ref))
            ran = (f"the library's code changed: ran again the {len(reports) - len(loaded)} example(s) that ran "
                   f"what changed (or are new), loaded {len(loaded)} from" if loaded else "ran the examples and stored "
                   "them in")
            note = f"{ran} the discovery cache {store.path} ({store.size()})" + (
                f" ({again} example(s) will run again: their cases do not pickle)" if again else "") + store.said_unused()
    return _without_repeats(Discovery(package, sorted(failures + reports, key=lambda r: r.ref), seconds, note,
                                      len(reports)))


def _without_repeats(found: Discovery) -> Discovery:
    """Keep one case of each configuration: examples often build the same value the same way
    (``Quaternion.identity()`` opens a dozen of kornia's examples), and a repeat measures nothing new. Two cases
    repeat when their definitions agree but for the name and the repro code (the same callee, bound object, baked
    arguments and input values); the first one the examples recorded stays, with its name. Not renumbered: a
    worker finds a case in the cache by the name discovery gave it."""
    from ...cases.fingerprint import definition_digest, definition_or_why
    from ...cases.registry import split_name

    def order(spec: CaseSpec) -> int:
        words = split_name(spec.name)[1].split()  # "doc" or "doc 5"
        return int(words[-1]) if len(words) > 1 and words[-1].isdigit() else 1

    keys: dict[int, str] = {}
    undescribed: dict[int, str] = {}  # a case the probe cannot describe: left out, with why
    for spec in found.cases:
        definition, why = definition_or_why(spec)
        if definition is None:
            undescribed[id(spec)] = why
            continue
        definition.pop("code", None)
        keys[id(spec)] = definition_digest(definition)
    first: dict[str, CaseSpec] = {}
    for spec in found.cases:
        kept = first.get(keys.get(id(spec), ""))
        if id(spec) in keys and (kept is None or order(spec) < order(kept)):
            first[keys[id(spec)]] = spec
    for report in found.objects:
        cases = []
        for spec in report.cases:
            kept = first.get(keys.get(id(spec), ""))
            if id(spec) in undescribed:
                report.dropped.append(f"{spec.name}: {undescribed[id(spec)]}")
            elif kept is spec:
                cases.append(spec)
            else:
                report.dropped.append(f"{spec.name} repeats {kept.name} (the same call on the same inputs)")
        if report.cases and not cases and any(id(spec) in undescribed for spec in report.cases):
            report.skip, report.detail = NOT_DESCRIBED, "; ".join(report.dropped)
        report.cases = cases
    return found


def _stamp(reports: list[ObjectReport], package: str, include: list[str], exclude: list[str],
           time_limit: float) -> None:
    """Tell each case which call and example made it (not stored in the cache: it is the cache's key)."""
    for report in reports:
        for spec in report.cases:
            spec.discovery = DiscoveryRef(package, tuple(include), tuple(exclude), float(time_limit), report.ref)


def discovered_case(ref: DiscoveryRef, name: str, wanted: str = "") -> CaseSpec | None:
    """The case ``name`` that ``ref``'s example made, built alone: unpickled from its discovery cache entry, or
    by running that one example again (its cases do not pickle, the entry cannot be read, or the cache holds no
    discovery for these arguments). ``wanted``: the digest of the case's definition (cases/fingerprint.py
    ``definition_digest``): without the cache's header the example run alone may number its cases otherwise, so
    the case with that definition is taken; when the example run alone gives other values (what ran before it
    changed them: e3nn's first call of a cached basis draws random numbers), the examples before it in the
    cache's order run again with it, never a test suite. None when the example no longer makes it."""
    include, exclude = list(ref.include), list(ref.exclude)
    with random_state_kept():
        store = DiscoveryCache.open(ref.package, include, exclude, ref.time_limit, per_example=True)
        stored = last_stored(store)
        used: Counter[str] = Counter()  # the base names of the examples before it: its cases' numbers
        before: dict[str, Counter[str]] = {}  # the examples before it, each with the base names before it
        entry = None
        for candidate in stored.entries if stored is not None else []:
            if candidate.name == ref.example:
                entry = candidate
                break
            before[candidate.name] = Counter(used)
            used.update(candidate.bases)
        reports = None
        if store is not None and stored is not None and entry is not None and entry.stored:
            try:  # this case alone, not the others its example made
                reports = [store.load_report(stored, entry, only=name)]
            except Exception:  # a class it names moved or changed: its example runs again
                reports = None
        if reports is None:
            alone = {ref.example: used if entry is not None else Counter()}
            reports = _run(ref.package, include, exclude, ref.time_limit, only=alone)[0]
            if wanted and entry is not None and _with_definition(reports, wanted) is None:
                reports = _run(ref.package, include, exclude, ref.time_limit, only=dict(before, **alone))[0]
    _stamp(reports, ref.package, include, exclude, ref.time_limit)
    return _pick(reports, name, wanted)


def _pick(reports: list[ObjectReport], name: str, wanted: str) -> CaseSpec | None:
    """The case with the definition digest ``wanted`` (whatever its name), else the one named ``name``."""
    return _with_definition(reports, wanted) or next(
        (spec for report in reports for spec in report.cases if spec.name == name), None)


def _with_definition(reports: list[ObjectReport], wanted: str) -> CaseSpec | None:
    if not wanted:
        return None
    from ...cases.fingerprint import case_definition, definition_digest

    return next((spec for report in reports for spec in report.cases
                 if definition_digest(case_definition(spec)) == wanted), None)


def docstring_cases_left_out() -> ContextManager[None]:
    """While active, ``cases_from_docstrings`` (and ``cases_from_tests``) return no cases: a worker importing a case
    module for one of its hand-written cases does not build (or load) every discovered case of the package as well."""
    return _LEFT_OUT.turned_on()


_LEFT_OUT = Switch()


def discovered_cases_left_out() -> bool:
    """Whether :func:`docstring_cases_left_out` is active (``cases_from_tests`` returns no cases then either)."""
    return _LEFT_OUT.active


def _run(package: str, include: list[str], exclude: list[str], time_limit: float,
         only: dict[str, Counter[str]] | None = None, on_example: OnExample | None = None,
         loaded: dict[str, ObjectReport] | None = None) -> tuple[list[ObjectReport], list[ObjectReport]]:
    """(reports in the order the examples ran, modules that failed to import).

    ``only`` maps the names of the examples to run to the case base names used
    before each (so its cases get the names a full run gives them). ``loaded``:
    reports of examples that need not run again (from the discovery cache), taken
    in their place in the order, so the cases after them are named as a full run
    names them.
    """
    top = package.split(".")[0]
    modules, objects, failures = library_objects(package, include, exclude)
    aliases = find_aliases(modules, objects)
    functions, module_classes, method_classes = recorded_callables(objects)
    tests: list[doctest.DocTest] = []
    for ref, obj in objects.items():
        found, unreadable = _examples(ref, obj)
        tests += found
        if unreadable is not None:
            failures.append(unreadable)
    tests = [t for t in tests if selected(t.name, include, exclude)]
    failures = [f for f in failures if selected(f.ref, include, exclude)]
    if only is not None:
        tests = [t for t in tests if t.name in only]
    used: Counter[str] = Counter()
    reports: list[ObjectReport] = []
    loaded = loaded or {}
    # what each example ran is kept for the discovery cache; an example run again alone (``only``: its cases do
    # not pickle, or a worker builds its case) is never stored, so it runs unwatched
    watch = example_watch(top) if only is None else None
    with recording(functions, module_classes, top, method_classes):
        for done, test in enumerate(tests, 1):
            kept = loaded.get(test.name)
            if kept is not None and kept.example == example_digest(test):
                reports.append(kept)
                used.update(case_base_name(spec.ref) for spec in kept.cases)
                continue
            began = time.monotonic()
            try:
                counter = Counter(only[test.name]) if only is not None else used
                reports.append(_survey_one(test, package, top, time_limit, counter, aliases, watch))
            finally:
                release(test)
            if on_example is not None:
                on_example(done, len(tests), reports[-1], time.monotonic() - began)
    return reports, failures


def _from_cache(store: DiscoveryCache, stored: Stored, package: str, include: list[str], exclude: list[str],
                time_limit: float, began: float) -> Discovery | None:
    """The stored discovery, running again only the examples whose cases did not pickle; None if it is unusable."""
    try:
        failures = pickle.loads(stored.failures)
        loaded: dict[int, ObjectReport] = {}
        again: dict[str, Counter[str]] = {}
        used: Counter[str] = Counter()
        for index, entry in enumerate(stored.entries):
            if not entry.stored:
                again[entry.name] = Counter(used)
            else:
                loaded[index] = store.load_report(stored, entry)
            used.update(entry.bases)
    except Exception:  # a class it names moved or changed: run the examples (and store them again)
        return None
    rerun = {r.ref: r for r in _run(package, include, exclude, time_limit, only=again)[0]} if again else {}
    if set(rerun) != set(again):
        return None  # an example that ran before is not found now: run them all
    reports = [loaded[i] if i in loaded else rerun[e.name] for i, e in enumerate(stored.entries)]
    _stamp(reports, package, include, exclude, time_limit)
    note = (f"loaded from the discovery cache {store.path} ({store.size()}, made in {stored.seconds:.1f} s)"
            + (f"; ran again the {len(again)} example(s) whose cases do not pickle" if again else ""))
    return Discovery(package, sorted(failures + reports, key=lambda r: r.ref), time.monotonic() - began, note,
                     len(again))


def example_digest(test: doctest.DocTest) -> str:
    """A digest of an example's text: its statements and the outputs it expects."""
    text = "\n".join(f"{example.source}\0{example.want}" for example in test.examples)
    return hashlib.sha256(f"{test.name}\0{text}".encode()).hexdigest()[:16]


def example_watch(top: str) -> CodeWatch | None:
    """A watch on the library's code (what each example ran, for the discovery cache); None when the library's
    folder is not found (then a change to the library runs every example)."""
    places = _library_places(top)
    return None if places is None else CodeWatch(places, [places.library_dir])


def _library_places(top: str) -> CodePlaces | None:
    """Where the refs of the library ``top``'s code point (None: its folder is not found)."""
    root = library_root(top)
    return None if root is NO_LIBRARY else CodePlaces(top, root.directory, os.getcwd())


def _unchanged_examples(store: DiscoveryCache, stored: Stored, top: str) -> dict[str, ObjectReport]:
    """The reports of the stored examples whose library code did not change (their text is compared when they
    are about to run): read before the recorder replaces the library's callables, which unpickling looks up."""
    places = _library_places(top)
    if places is None:
        return {}
    check = CodeCheck(places)
    kept: dict[str, ObjectReport] = {}
    for entry in stored.entries:
        if not entry.stored or entry.code is None or check.changed(entry.code):
            continue
        try:
            report = store.load_report(stored, entry)
        except Exception:  # a class it names moved or changed: its example runs again
            continue
        report.example, report.code = entry.example, entry.code
        kept[entry.name] = report
    return kept


def release(test: doctest.DocTest) -> None:
    """Free what an example built (its images, its models) before the next one runs.

    The example's namespace is the only thing that keeps them: a case holds
    copies of its own target and inputs. Without this, surveying all of Kornia
    kept every example's globals alive and peaked near 10 GB. The namespace is
    dropped, not emptied: a function the example defined (a lambda passed to
    ``kornia.contrib.Lambda``) still reads its globals when the case runs.
    """
    test.globs = {}
    gc.collect()


_DEFINED = object()  # what stands for an example's value once the example has run (only its name is read)


def _survey_one(test: doctest.DocTest, package: str, top: str, limit: float, used: Counter[str],
                aliases: dict[str, list[str]], watch: CodeWatch | None = None) -> ObjectReport:
    report = ObjectReport(test.name, example=example_digest(test))
    began = time.monotonic()
    if watch is not None:
        watch.start()
    try:
        run = run_example(test, _globals(test, top), limit)
    finally:
        if watch is not None:
            report.code = watch.code()
            watch.stop()
    # the example's own objects go before its cases are checked (a 1.5 GB model would otherwise sit beside
    # the case's copy and the copy each check runs); a case holds copies of its target and inputs, and
    # writing its repro reads only which names are modules
    test.globs = {name: value if isinstance(value, (str, types.ModuleType)) else _DEFINED
                  for name, value in test.globs.items()}
    report.seconds = time.monotonic() - began
    if run.failure:
        report.skip, report.detail = run.failure, run.detail
        return report
    in_package = [c for c in run.calls if c.ref.startswith(package + ".")]
    source = "\n".join(example.source for example in test.examples)
    for call in in_package:
        call.ref = as_written(call.ref, aliases, source)
    for call in in_package:
        if not probed_call(call):
            continue  # e.g. a call with an array or an object: nothing the probe can pass as a graph input
        if call.raised:  # the example shows it failing (a Traceback): a case would only fail eagerly
            report.dropped.append(f"{call.ref} raised {call.raised} (the example shows it failing)")
            continue
        base = case_base_name(call.ref)
        used[base] += 1
        name = f"{base}[doc]" if used[base] == 1 else f"{base}[doc {used[base]}]"
        group, section = place(call.ref, package)
        try:
            report.cases.append(build_case(call, name=name, package=group, section=section, source_ref=test.name,
                                           test=test))
        except UnsupportedCall as exc:
            used[base] -= 1
            report.dropped.append(f"{call.ref}: {exc}")
        except Exception as exc:  # e.g. case() refusing the target: said, not hidden
            used[base] -= 1
            report.dropped.append(f"{call.ref}: {type(exc).__name__}: {exc}")
    if not report.cases and any(c.raised for c in in_package):
        report.skip, report.detail = "raised", "; ".join(report.dropped)
    elif not report.cases:
        report.skip = "no tensor call"
        called = sorted({c.ref for c in in_package})
        report.detail = ("calls " + ", ".join(called) + " with neither a tensor nor plain Python values only" if called and not report.dropped
                         else "; ".join(report.dropped) if report.dropped
                         else f"the example calls no public callable of {package}")
    return report


def cases_from_docstrings(package: str, *, include: Iterable[str] = (), exclude: Iterable[str] = (),
                          time_limit: float = DEFAULT_TIME_LIMIT) -> list[CaseSpec]:
    """The cases of every docstring example in ``package``: ``CASES = HAND + cases_from_docstrings("pkg")``.

    ``include`` / ``exclude``: dotted names, name prefixes or ``*`` patterns of
    the objects whose examples run. Run ``python -m sphinx_kexport.probe
    discover PACKAGE`` to see what each object yields and why some yield nothing.

    The library's testing helpers (a module named ``test``, ``tests``, ``testing``, ``test_utils`` or
    ``testing_utils``) are left out unless ``package`` or an ``include`` entry names one; ``discover``
    lists them. A case goes under the package and section of its object's first case of the best origin
    (hand-written, then docstring, then test), whose own place, if discovered, its ref says: the ref's
    module cut to as many levels as ``package`` has, two at least, and the next module as the section.
    """
    if _LEFT_OUT.active:
        return []
    focused = focused_cases(  # a worker rebuilds one case through its module: that case alone
        DiscoveryRef, lambda ref: ref == DiscoveryRef(package, tuple(include), tuple(exclude), float(time_limit),
                                                      ref.example), discovered_case)
    if focused is not None:
        return focused
    discovery_began()  # what discovering runs is no one case's (measure/build_watch.py)
    found = discover(package, include=include, exclude=exclude, time_limit=time_limit, on_example=reporter())
    for report in found.objects:
        if report.skip in NO_CASE_KINDS:  # listed in the snapshot with why (run/inventory takes them)
            without_cases.note(report.ref, place(report.ref, package)[0], report.skip, report.detail)
    case_built(None)  # what discovering ran built no one case: its cache follows that code
    return found.cases


def duplicate_of(spec: CaseSpec, others: list[CaseSpec]) -> CaseSpec | None:
    """The case of ``others`` that ``spec`` repeats and that wins over it: the same object (``ref``, by any of its
    public names) and input shapes, and a better origin (hand-written, then docstring, then test: the rule joining
    the case modules, :func:`~..cases.inventory.repeat_key`)."""
    seen = spec.joinable
    key = repeat_key(seen)
    if key is None:
        return None
    return next((o for o in others if repeat_key(o.joinable) == key and o.joinable.rank < seen.rank), None)


def merge_cases(hand: list[CaseSpec], discovered: list[CaseSpec]) -> list[CaseSpec]:
    """``hand`` then the discovered cases that repeat no case of a better origin: the hand-written one wins,
    then the docstring one (``merge_cases(HAND, cases_from_docstrings(pkg) + cases_from_tests(pkg, path))``).
    A repeat is as :func:`duplicate_of` says."""
    # each case's key is read once (its public names are looked up in the library's modules): asking
    # duplicate_of for every case read them n² times, 81 s of e3nn's 94 s inventory for 151 cases
    keyed = [(spec, spec.joinable) for spec in list(hand) + list(discovered)]
    best: dict[Any, int] = {}  # repeat key -> the best origin's rank among the cases that have it
    for _, seen in keyed:
        key = repeat_key(seen)
        if key is not None:
            best[key] = min(best.get(key, seen.rank), seen.rank)
    kept = [spec for spec, seen in keyed[len(hand):]
            if (key := repeat_key(seen)) is None or best[key] >= seen.rank]
    return list(hand) + kept
