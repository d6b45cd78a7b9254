"""What test discovery copies of a test's calls, and what its cache stores (discover/suite/suite_copies.py; issue 43:
e3nn's o3 tests took a shard past 3 GB, and the cache to 311 MB, with copies of calls that could never be cases).

tests/probe/probe_cases/copyproject: copylib and its tests, which pass a tensor too large to keep, call the same
way a hundred times in a loop, and spend one test's copy budget. The limits are lowered here (16 MiB a call, 16
MiB a test) so that the tensors stay small; each test measures what its process holds around its calls.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")
if not Path("/proc/self/status").exists():
    pytest.skip("the tests read their resident memory from Linux's /proc", allow_module_level=True)

PROJECT = Path(__file__).resolve().parents[1] / "probe_cases" / "copyproject"
TESTS = PROJECT / "tests"
MIB = 2**20
NODE = "tests/test_copies.py::"


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))  # copylib is not installed; its tests import it from here
    from sphinx_kexport.probe.discover.suite import suite_copies
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    folder = tmp_path_factory.mktemp("copylib")
    said = folder / "said.txt"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suite_copies, "CALL_COPY_LIMIT", 16 * MIB)
        patch.setattr(suite_copies, "TEST_COPY_LIMIT", 16 * MIB)
        patch.setenv("COPYLIB_SAID", str(said))
        patch.setenv("KEXPORT_DISCOVERY_CACHE", str(folder / "cache"))
        found = discover_suite("copylib", TESTS, time_limit=30.0, jobs=1)
    measured = {name: int(value) for name, value in (line.split() for line in said.read_text().splitlines())}
    return found, {r.ref.removeprefix(NODE): r for r in found.reports}, measured, folder / "cache"


def test_a_call_too_large_to_keep_is_said_and_not_copied(found):
    _, reports, measured, _ = found
    report = reports["test_passes_a_tensor_too_large_to_keep"]
    assert report.cases == [] and report.skip == "too large"
    assert report.detail == ("copylib.total: too large to keep: its tensors hold 40 MiB, over the 16 MiB the "
                             "recorder copies of one call")
    assert report.dropped == []  # said once, in the reason
    assert measured["large_call_grew_kib"] < 8 * 1024  # a copy would hold 40 MiB more while the test runs
    # the next configuration of the operator takes its place
    assert [c.name for c in reports["test_a_small_call_after_it"].cases] == ["total[test]"]


def test_a_repeat_within_a_test_is_not_copied(found):
    _, reports, measured, _ = found
    report = reports["test_calls_in_a_loop"]
    assert [(c.name, tuple(c.inputs[0].shape)) for c in report.cases] == [("scale[test]", (64, 1024)),
                                                                          ("scale[test 2]", (2, 2))]
    assert report.covered == 99  # the repeats of scale's first call; count's repeats are no case either way
    assert report.dropped == ["copylib.count: it returns no tensor (a check, a Python object), so there is no output "
                              "to compare"]
    assert measured["loop_grew_kib"] < 8 * 1024  # a hundred copies would hold 25 MiB


def test_a_test_copies_no_more_than_its_budget(found):
    _, reports, _, _ = found
    report = reports["test_spends_the_tests_copy_budget"]
    assert [c.name for c in report.cases] == ["total[test 2]", "total[test 3]"]
    assert report.dropped == ["copylib.total: too large to keep: its tensors hold 6 MiB, and the test's earlier "
                              "calls 12 MiB, over the 16 MiB the recorder copies of one test"]


def test_the_discovery_says_the_size_of_its_cache_and_what_it_holds(found):
    from sphinx_kexport.probe.discover.cache import megabytes

    found, _, _, cache = found
    [stored] = cache.glob("copylib-*.pickle")
    said = re.search(r"discovery cache (\S+) \(([\d.]+ MB): (\d+) cases, and (\d+) more that a rerun may keep\)",
                     found.cache)
    assert said is not None, found.cache
    assert (said[1], said[2], int(said[3]), int(said[4])) == (str(stored), megabytes(stored.stat().st_size), 5, 0)
    assert stored.stat().st_size < 14 * MIB  # the two 6 MiB inputs; neither the 40 MiB one nor a hundred copies


def _for_cache_of_four_tests():
    """(what the cache stores of four tests of two files, how many calls not kept it stores, the takes): in
    shards each test's calls reach the parent apart, so two tests of one file can bring the same configuration."""
    from sphinx_kexport.probe.cases.registry import case
    from sphinx_kexport.probe.discover.suite.suite import Candidate, NodeReport, Take, _for_cache, _Ran
    from sphinx_kexport.probe.discover.suite.suite_run import NodeRun

    def candidate(key: str, rows: int, kept: str = "") -> Candidate:
        spec = case(kept or "neg[x]", torch.neg, [torch.ones(rows)], package="torch", ref="torch.neg")
        return Candidate("torch.neg", (key,), 0, spec, stored=kept)

    takes = {"a.py::t1": Take(NodeRun("a.py::t1"), [candidate("k1", 1, kept="neg[test]")]),
             "a.py::t2": Take(NodeRun("a.py::t2"), [candidate("k1", 1)]),  # a repeat in its file: never a case
             "b.py::t1": Take(NodeRun("b.py::t1"), [candidate("k2", 2)]),  # kept if a.py stops keeping k1
             "b.py::t2": Take(NodeRun("b.py::t2"), [candidate("k3", 3)])}  # per_operator=1 is reached in b.py
    reports = [NodeReport(node, cases=[c.spec for c in take.candidates if c.stored]) for node, take in takes.items()]
    stored, unkept = _for_cache(_Ran(reports, [], "", takes, None, 4), per_operator=1)
    return stored, unkept, takes


def test_the_cache_stores_no_case_that_its_own_file_covers():
    """Only what comes first in its file can ever be kept, whatever a rerun changes elsewhere: b.py's first call
    is stored apart, counted as not kept (a place of its own, no name that a case could have)."""
    from sphinx_kexport.probe.discover.suite.suite import Unkept

    stored, unkept, takes = _for_cache_of_four_tests()
    assert unkept == 1
    assert {r.ref: ([c.name for c in r.cases], r.unkept) for r in stored} == {
        "a.py::t1": (["neg[test]"], 0), "a.py::t2": ([], 0), "b.py::t1": (["neg[x]"], 1), "b.py::t2": ([], 0)}
    assert [c.stored for c in takes["b.py::t1"].candidates] == [Unkept(0)]
    assert [c.stored for c in takes["a.py::t1"].candidates] == ["neg[test]"]


def test_a_call_not_kept_is_stored_without_a_name_and_found_again_by_its_place(tmp_path):
    """The cache file names a kept case only: a worker asking for a case by name, and a discovery loaded
    whole, never get a call the selection did not keep; a rerun's take finds it again by its place."""
    from sphinx_kexport.probe.discover.cache import DiscoveryCache
    from sphinx_kexport.probe.discover.suite.suite import Unkept, _cached_takes, _kept_entry

    stored, _, _ = _for_cache_of_four_tests()
    store = DiscoveryCache(tmp_path, {"package": "torch"})
    assert store.save(stored, [], 1.0, lambda spec: spec.name) == 0
    header = store.load()
    assert header is not None
    entries = {entry.name: entry for entry in header.entries}
    assert [name for name, _, _ in entries["b.py::t1"].cases] == [None] and entries["b.py::t1"].bases == []
    assert [name for name, _, _ in entries["a.py::t1"].cases] == ["neg[test]"]
    assert store.load_report(header, _kept_entry(entries["b.py::t1"])).cases == []
    assert store.load_report(header, entries["b.py::t1"], only="neg[x]").cases == []
    reason, takes = _cached_takes(store, header, entries, ["a.py::t1", "b.py::t1"])
    assert reason == ""
    [again] = takes["b.py::t1"].candidates
    assert again.stored == Unkept(0) and again.spec is not None and again.spec.inputs[0].shape == (2,)
    [kept] = takes["a.py::t1"].candidates
    assert kept.stored == "neg[test]" and kept.spec is not None and kept.spec.inputs[0].shape == (1,)


def test_a_test_stopped_after_a_call_too_large_to_keep_says_both():
    from sphinx_kexport.probe.discover.suite.suite import Candidate, Take, _Selector
    from sphinx_kexport.probe.discover.suite.suite_run import NodeRun

    too_large = ("copylib.total: too large to keep: its tensors hold 40 MiB, over the 32 MiB the recorder copies of "
                 "one call")
    take = Take(NodeRun("tests/test_copies.py::test_x", "time limit", "ran past the 10 s limit"),
                [Candidate("copylib.total", None, 0, dropped=too_large, large=True)])
    report = _Selector("copylib", 3).report(take)
    assert (report.skip, report.detail, report.dropped) == ("time limit", "ran past the 10 s limit", [too_large])
