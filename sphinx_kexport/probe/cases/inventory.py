"""The inventory: what the probe's parent knows of every case, and the rules that join the case modules.

The parent never holds a case's target or inputs. A child process imports a
case module and describes each case as an :class:`InventoryCase`: its name,
where it came from, the snapshot entry it will be listed under and the
definition its fingerprint hashes (digests of the inputs, not the inputs).
Standard library only: the parent of a survey never imports torch.

:func:`join` applies the rules that need every module at once, in the order of
``cases``: a discovered case whose name another module already registered is
renamed ``Name[doc][package]``; a case recorded from the tests whose name a case
of another ``cases_from_tests`` call of the same module registered is renamed
``Name[test][tests folder]`` (``scale[test][tests/b]``: two test folders, each
discovered apart); any other repeated name is a mistake. A discovered case that
names the object of a hand-written case by another of its public names takes the
hand-written case's name for it (``ref``; its own goes to its ``aliases``);
every discovered case of an object is listed where the object's first case of
the best origin is (its ``package`` and ``section``: one object, one section of
the page); and a discovered case that repeats a case of a better origin
(the same object, same input shapes) is dropped: a hand-written case wins over a
docstring one, which wins over one recorded from the library's tests
(:data:`ORIGIN_RANK`).
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, TypeVar

from ...snapshot.vocabulary import ORIGIN_DOCSTRING, ORIGIN_HAND, ORIGIN_TEST
from ..base.errors import ProbeError
from ...snapshot.records import object_name
from .public_names import ordered

T = TypeVar("T")
# which case wins when two repeat each other (same object, same input shapes): the lower rank
ORIGIN_RANK = {ORIGIN_HAND: 0, ORIGIN_DOCSTRING: 1, ORIGIN_TEST: 2}


class LoadError(ProbeError):
    """A case module or case that cannot be used (a case module cannot be found or imported, its ``CASES`` is
    not a list of cases); the message says where and what to do. :func:`run_survey` reports it as a
    :class:`SurveyError`."""


class TorchLacks(LoadError):
    """A case module needs a torch name that the running torch does not have: when one case set is surveyed
    under several torch versions, an older one skips that module (its cases are absent for that version),
    instead of the run stopping as it does for a mistake."""


@dataclass(frozen=True)
class Source:
    """One entry of ``cases``: how to import it, and how to name it in messages."""

    module: str
    path_entry: str  # directory put on sys.path first ("" for none)
    label: str
    found_in_directory: bool = False  # then a module without CASES is a helper, not a mistake


@dataclass(frozen=True)
class DiscoveryRef:
    """Where a discovered case comes from: the ``cases_from_docstrings`` call and the example that made it.

    A worker rebuilds the case from this alone (its entry in the discovery cache, or that one example run
    again) instead of importing its case module and building every case of the package."""

    package: str
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    time_limit: float
    example: str  # the doctest's name: the object whose example made the case


@dataclass(frozen=True)
class SuiteRef:
    """Where a case recorded from the library's tests comes from: the ``cases_from_tests`` call, the test (its
    node id) and which call of that test. A worker rebuilds the case from this alone (the discovery cache's
    entry of that test, or that one test run again)."""

    package: str
    tests: str  # the tests' path, absolute
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    time_limit: float
    per_operator: int
    rootdir: str  # pytest's rootdir for these tests: the node id is relative to it
    node: str  # the test's node id
    call_ref: str  # the callable called
    occurrence: int  # 0 for the test's first call of call_ref, 1 for the second, ...


@dataclass
class InventoryCase:
    """One registered case as the parent sees it: plain data that pickles small."""

    name: str  # the name in the snapshot (``local_name``, or qualified by :func:`join`)
    local_name: str  # the name its case module registers it under: how a worker finds it
    module: str  # the case module that registers it
    package: str
    ref: str
    origin: str  # snapshot.vocabulary.ORIGINS
    skip: str | None
    shapes: tuple[tuple[int, ...], ...]  # of the tensor inputs, for finding repeats
    definition: dict[str, Any]  # what the fingerprint covers (cases/fingerprint.py)
    entry: dict[str, Any] = field(default_factory=dict)  # the snapshot's case entry, without results
    discovery: DiscoveryRef | SuiteRef | None = None  # for a discovered case: how a worker rebuilds it alone
    weight_bytes: int = 0  # of the module it calls (cases/describe.py); not part of what the fingerprint covers
    aliases: tuple[str, ...] = ()  # the object's other public names (cases/public_names.py)
    # what building it ran, {ref: digest} (measure/build_watch.py): each record of the case names it too
    build_code: dict[str, str] = field(default_factory=dict)

    @property
    def discovered(self) -> bool:
        return self.origin != ORIGIN_HAND

    def renamed(self, name: str) -> InventoryCase:
        entry = dict(self.entry, name=name)
        return dataclasses.replace(self, name=name, entry=entry,
                                   definition=dict(copy.deepcopy(self.definition), name=name))

    def placed(self, package: str, section: str) -> InventoryCase:
        """This case listed under another package and section of the page."""
        return dataclasses.replace(self, package=package, entry=dict(self.entry, package=package, section=section))

    def named(self, ref: str) -> InventoryCase:
        """This case with ``ref`` (another of the object's public names) as its name for the object."""
        aliases = ordered({self.ref, *self.aliases} - {ref})
        entry = dict(self.entry, ref=ref)
        entry.pop("aliases", None)
        if aliases:
            entry["aliases"] = list(aliases)
        return dataclasses.replace(self, ref=ref, aliases=aliases, entry=entry)


@dataclass(frozen=True)
class Joinable:
    """What :func:`join` reads of a case, whatever holds it (an :class:`InventoryCase` or a ``CaseSpec``)."""

    name: str
    package: str
    ref: str
    shapes: tuple[tuple[int, ...], ...]
    origin: str
    aliases: tuple[str, ...] = ()  # the object's other public names
    section: str = ""
    suite: str = ""  # for a case recorded from the tests: its tests folder (suite_label), else ""

    @property
    def discovered(self) -> bool:
        return self.origin != ORIGIN_HAND

    @property
    def rank(self) -> int:
        return ORIGIN_RANK.get(self.origin, len(ORIGIN_RANK))


def suite_label(discovery: Any) -> str:
    """The tests folder a case recorded from the tests comes from, as its name's qualifier says it: relative to
    pytest's rootdir (``tests/b``), else the folder's own name; "" for any other case."""
    if not isinstance(discovery, SuiteRef):
        return ""
    relative = os.path.relpath(discovery.tests, discovery.rootdir) if discovery.rootdir else os.pardir
    if relative == os.curdir or relative.startswith(os.pardir):
        relative = os.path.basename(discovery.tests)
    return relative.replace(os.sep, "/")


def repeat_key(case: Joinable) -> tuple[str, tuple[tuple[int, ...], ...]] | None:
    """What makes a discovered case repeat a case of a better origin: the same object (``ref``, under any of its
    public names, when it has one) and the same input shapes. None for a case without a ref, which repeats
    nothing."""
    return (object_name(case.ref, case.aliases), case.shapes) if case.ref else None


def qualified_name(name: str, package: str) -> str:
    """``Normalize[doc]`` of ``kornia.enhance`` -> ``Normalize[doc][kornia.enhance]``.

    Discovery names a case after the callable's last name, which two surveyed
    packages may share. The modules are joined in the order of ``cases``, so
    the later one is renamed the same way in every run.
    """
    return f"{name}[{package}]"


def join(groups: Sequence[tuple[str, Sequence[T]]], describe: Callable[[T], Joinable],
         rename: Callable[[T, str], T], name_object: Callable[[T, str], T] | None = None,
         place: Callable[[T, str, str], T] | None = None) -> tuple[list[T], list[tuple[T, T]]]:
    """(the cases in registration order, the (dropped, winner) pairs of discovered cases dropped as repeats of a
    case of a better origin, :data:`ORIGIN_RANK`).

    ``groups`` holds each module's label and its cases, in the order of ``cases``; ``describe`` reads a
    case, ``rename`` returns it under a new name, ``name_object`` with another ``ref`` (one of its aliases: the
    name a hand-written case gives the object), ``place`` under another package and section. LoadError for a
    name registered twice.
    """
    cases: list[T] = []
    owner: dict[str, tuple[str, str]] = {}  # name -> (the module that registered it, that case's tests folder)
    for label, registered in groups:
        for item in registered:
            seen = describe(item)
            if seen.name in owner and seen.discovered and owner[seen.name][0] != label:
                item = rename(item, qualified_name(seen.name, seen.package))  # two packages' `Normalize`
                seen = describe(item)
            elif seen.name in owner and seen.suite and owner[seen.name][1] not in ("", seen.suite):
                item = rename(item, qualified_name(seen.name, seen.suite))  # two test folders' `scale[test]`
                seen = describe(item)
            if seen.name in owner:
                first = owner[seen.name][0]
                where = "twice in this module" if first == label else f"in {first} and in {label}"
                raise LoadError(f"case {seen.name!r} is registered {where}. Case names must be unique across "
                                "all case modules: rename one (e.g. add a [variant] suffix).")
            owner[seen.name] = (label, seen.suite)
            cases.append(item)
    if not cases:
        raise LoadError("the case modules register no cases: " + ", ".join(label for label, _ in groups))
    if name_object is not None:
        cases = _named_as_by_hand(cases, describe, name_object)
    if place is not None:
        cases = _placed_as_the_best(cases, describe, place)
    winners: dict[tuple, tuple[int, T]] = {}  # key -> (rank, the first case of the best rank)
    for item in cases:
        seen = describe(item)
        key = repeat_key(seen)
        if key is not None and (key not in winners or seen.rank < winners[key][0]):
            winners[key] = (seen.rank, item)
    dropped: list[tuple[T, T]] = []
    for item in cases:
        seen = describe(item)
        key = repeat_key(seen)
        if seen.discovered and key in winners and winners[key][0] < seen.rank:
            dropped.append((item, winners[key][1]))
    gone = {id(item) for item, _ in dropped}
    return [item for item in cases if id(item) not in gone], dropped


def _named_as_by_hand(cases: list[T], describe: Callable[[T], Joinable], name_object: Callable[[T, str], T]
                      ) -> list[T]:
    """Each discovered case whose object a hand-written case names by another of its public names, under the
    hand-written name: one name for one object across the rows (the case author's choice, where there is one)."""
    by_hand: dict[str, str] = {}  # object -> the first hand-written case's ref
    for item in cases:
        seen = describe(item)
        if not seen.discovered and seen.ref and seen.aliases:
            by_hand.setdefault(object_name(seen.ref, seen.aliases), seen.ref)
    out = []
    for item in cases:
        seen = describe(item)
        chosen = by_hand.get(object_name(seen.ref, seen.aliases)) if seen.discovered and seen.ref else None
        out.append(name_object(item, chosen) if chosen and chosen != seen.ref else item)
    return out


def _placed_as_the_best(cases: list[T], describe: Callable[[T], Joinable], place: Callable[[T, str, str], T]
                        ) -> list[T]:
    """Each discovered case listed where the first case of its object of the best origin is (a hand-written
    case's package and section, else a docstring case's, else the first test case's): one object, one section
    of the page, whichever discovery call (and its package argument) recorded it."""
    best: dict[str, tuple[int, str, str]] = {}  # object -> (rank, package, section) of its first best case
    for item in cases:
        seen = describe(item)
        if seen.ref:
            key = object_name(seen.ref, seen.aliases)
            if key not in best or seen.rank < best[key][0]:
                best[key] = (seen.rank, seen.package, seen.section)
    out = []
    for item in cases:
        seen = describe(item)
        where = best[object_name(seen.ref, seen.aliases)][1:] if seen.discovered and seen.ref else None
        out.append(place(item, *where) if where and where != (seen.package, seen.section) else item)
    return out


def joinable(case: InventoryCase) -> Joinable:
    return Joinable(case.name, case.package, case.ref, case.shapes, case.origin, case.aliases,
                    case.entry.get("section", ""), suite_label(case.discovery))


def join_inventory(groups: Iterable[tuple[str, list[InventoryCase]]]
                   ) -> tuple[list[InventoryCase], list[tuple[InventoryCase, InventoryCase]]]:
    return join(list(groups), joinable, lambda case, name: case.renamed(name), lambda case, ref: case.named(ref),
                lambda case, package, section: case.placed(package, section))
