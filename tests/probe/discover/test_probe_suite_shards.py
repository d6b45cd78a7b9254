"""A test suite run in shards (child processes, ``jobs`` at once) keeps exactly the cases of a run in a row.

The suite is tests/probe/probe_cases/suiteproject's: its tests share operators across files (scale is kept
three times, then covered, in test_objects.py and test_ops.py), keep a case that does not pickle (a lambda
baked into apply[test]: built again in the parent), fail, run past the time limit, are deselected for their
dtype or device, and one file does not import: every way a shard's view of a test differs from the suite's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

PROJECT = Path(__file__).resolve().parents[1] / "probe_cases" / "suiteproject"
TESTS = PROJECT / "tests"
LIMIT = 1.0


def _described(found) -> list:
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint

    # how a test ran past its time limit ("ran past the 1 s limit", or "waited past 3 s without using its 1 s of
    # CPU time" where the machine is busy) depends on the load at that moment, not on the sharding
    return [(r.ref, r.skip, "" if r.skip == "time limit" else r.detail, r.covered, r.dropped,
             [(c.name, fingerprint(case_definition(c), "cpu", 18, "1", {})) for c in r.cases])
            for r in found.reports]


@pytest.fixture(scope="module")
def both():
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))
    from sphinx_kexport.probe.discover.suite import suite_shards
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    lines: list[tuple[int, int, str]] = []
    in_a_row = discover_suite("suitelib", TESTS, time_limit=LIMIT, jobs=1)
    # a suite this small runs in one shard: four shards here, so that every way a shard's view differs is met
    kept = suite_shards.MIN_TESTS_PER_SHARD
    suite_shards.MIN_TESTS_PER_SHARD = 1
    try:
        sharded = discover_suite("suitelib", TESTS, time_limit=LIMIT, jobs=2,
                                 on_test=lambda done, total, report, seconds: lines.append((done, total, report)))
    finally:
        suite_shards.MIN_TESTS_PER_SHARD = kept
    return in_a_row, sharded, lines


def test_a_small_suite_runs_in_fewer_shards_each_worth_its_start_up():
    from sphinx_kexport.probe.discover.suite.suite_shards import MIN_TESTS_PER_SHARD, SHARDS_PER_JOB, deal, shard_count

    assert shard_count(34, 2) == 1  # the fixture suite: one child, not four
    assert shard_count(2 * MIN_TESTS_PER_SHARD + 1, 2) == 3
    assert shard_count(1044, 2) == 2 * SHARDS_PER_JOB  # e3nn's o3 tests: every shard the jobs allow
    assert shard_count(0, 4) == 1 and shard_count(5, 1) == 1
    assert [len(s) for s in deal([f"t{i}" for i in range(90)], shard_count(90, 2))] == [30, 30, 30]


def test_shards_keep_the_cases_names_and_fingerprints_of_a_run_in_a_row(both):
    in_a_row, sharded, _ = both
    assert _described(sharded) == _described(in_a_row)
    names = [c.name for c in sharded.cases]
    assert {"scale[test]", "scale[test 2]", "scale[test 3]", "apply[test]"} <= set(names)
    assert callable(next(c for c in sharded.cases if c.name == "apply[test]").kwargs.get("fn", len))
    assert sharded.skipped() == in_a_row.skipped()


def test_each_test_of_each_shard_gets_a_progress_line_numbered_across_the_suite(both):
    from sphinx_kexport.probe.discover.progress import line

    _, sharded, lines = both
    deselected = {"tests/test_broken.py", "tests/test_ops.py::test_blend[cpu-float16]",
                  "tests/test_ops.py::test_blend[cpu-float64]"} | {
        r.ref for r in sharded.reports if r.detail.startswith("parametrised with device")}
    ran = [r.ref for r in sharded.reports if r.ref not in deselected]
    assert [done for done, _, _ in lines] == list(range(1, len(ran) + 1))
    assert {total for _, total, _ in lines} == {len(ran)}
    assert sorted(report.ref for _, _, report in lines) == sorted(ran)
    said = line(*lines[0][:2], lines[0][2], 0.5)
    assert said.startswith(f"[1/{len(ran)}] tests/") and "\n" not in said


def test_the_suites_jobs_setting_shards_a_discovery(monkeypatch):
    from sphinx_kexport.probe.discover.suite import suite, suite_shards

    seen = []

    def run_all(arguments, on_test, jobs, watched):
        seen.append(jobs)
        raise KeyboardInterrupt  # what the run would do is not this test's

    monkeypatch.setattr(suite, "_run_all", run_all)
    suite_shards.set_suite_jobs(3)
    try:
        with pytest.raises(KeyboardInterrupt):
            suite.discover_suite("suitelib", TESTS, time_limit=LIMIT)
    finally:
        suite_shards.set_suite_jobs(1)
    assert seen == [3]


BUDGET = Path(__file__).resolve().parents[1] / "probe_cases" / "budgetproject"


def test_a_test_stopped_at_its_time_limit_keeps_the_calls_it_made_before():
    """e3nn's 16 test_normalized run for minutes each under the recorder: the time limit is the discovery's
    budget per test, and a test past it still yields what it called before (else it is listed with why)."""
    if str(BUDGET) not in sys.path:
        sys.path.insert(0, str(BUDGET))
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    found = discover_suite("budgetlib", BUDGET / "tests", time_limit=0.5, jobs=1)
    reports = {r.ref.split("::")[1]: r for r in found.reports}
    stopped = reports["test_calls_then_runs_long"]
    assert [c.name for c in stopped.cases] == ["shift[test]"] and stopped.skip == ""
    assert [tuple(t.shape) for t in stopped.cases[0].inputs] == [(2, 3)]
    # "ran past the 0.5 s limit", or on a loaded machine "waited past 1.5 s without using its 0.5 s of CPU time"
    [note] = stopped.dropped
    assert note.startswith("the test was stopped: ") and note.endswith("0.5 s limit; its calls before are kept") \
        or "0.5 s of CPU time; its calls before" in note
    listed = reports["test_runs_long_before_calling"]
    assert (listed.cases, listed.skip) == ([], "time limit") and "0.5 s" in listed.detail
    assert [c.name for c in reports["test_quick"].cases] == ["shift[test 2]"]
    # the limit counts from the test's last call of a new configuration: each of these came 0.3 s after the last
    spaced = reports["test_calls_between_long_computations"]
    assert [tuple(c.inputs[0].shape) for c in spaced.cases] == [(1, 4), (2, 4), (3, 4)] and spaced.skip == ""
    # stopped while dynamo compiled: dynamo's own error wraps the limit's, which still decides (e3nn's
    # test_input_weights_jit, stopped inside inductor, read as failing only under the recorder)
    compiling = reports["test_compiles_past_the_limit"]
    assert (compiling.cases, compiling.skip) == ([], "time limit") and "0.5 s" in compiling.detail
