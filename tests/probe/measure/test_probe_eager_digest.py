"""Eager output, byte for byte (issue 61): each measured case records a digest of its eager outputs with the torch and
machine that computed it, a reused record keeps it, and ``probe diff`` fails on a digest that moved on the same
machine and torch (tests/probe/probe_cases/eagerproject: a sum over a million numbers and a random operator, copied
and edited between real probe runs, as a maintainer's CI would)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from probe_cli import edit
from probe_cli import project_probe as probe
from probe_cli import project_survey as survey

pytestmark = [pytest.mark.probe, pytest.mark.slow]
torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "eagerproject"
CASES = ("total", "jitter")


def statuses(snapshot: dict) -> dict[str, dict[str, str]]:
    return {c["name"]: {path: r["status"] for path, r in c["results"]["cpu"].items()} for c in snapshot["cases"]}


def stamps(snapshot: dict) -> dict[str, dict]:
    return {c["name"]: c["measured"]["cpu"] for c in snapshot["cases"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Survey; the sum written otherwise with the same numbers (``2 * x``: measured again, ``jitter`` reused); every
    ``x * 2`` made ``x * 2.0001`` (both measured again, their numbers moved); the diffs."""
    where = tmp_path_factory.mktemp("eager") / "project"
    shutil.copytree(PROJECT, where)
    found = {"first": survey(where)}
    shutil.copy(where / "support.json", where / "base.json")
    edit(where / "eagerlib" / "__init__.py", "return (x * 2).sum()", "return (2 * x).sum()")
    found["same_numbers"] = survey(where)
    found["same_diff"] = probe(where, "diff", "base.json", "support.json")
    edit(where / "eagerlib" / "__init__.py", "(2 * x)", "(x * 2)")
    edit(where / "eagerlib" / "__init__.py", "x * 2", "x * 2.0001")
    found["moved"] = survey(where)
    found["regressions"] = probe(where, "diff", "base.json", "support.json")
    found["allowed"] = probe(where, "diff", "base.json", "support.json", "--allow", "eager")
    # the base as another torch would have measured it: its header and each stamp say so
    other = json.loads((where / "base.json").read_text())
    other["environments"]["cpu"]["torch"] = "2.12.0+cpu"
    for stamp in stamps(other).values():
        stamp["eager"]["torch"] = "2.12.0+cpu"
    (where / "other_torch.json").write_text(json.dumps(other))
    found["other_torch"] = probe(where, "diff", "other_torch.json", "support.json")
    found["where"] = where
    return found


def test_each_measured_case_records_its_eager_digest_with_torch_and_machine(runs):
    _, snapshot = runs["first"]
    for name, stamp in stamps(snapshot).items():
        assert set(stamp["eager"]) == {"digest", "torch", "machine"}, name
        assert re.fullmatch(r"[0-9a-f]{64}", stamp["eager"]["digest"])
        assert stamp["eager"]["torch"] == torch.__version__
        assert stamp["eager"]["machine"] == snapshot["environments"]["cpu"]["device_name"]
    assert stamps(snapshot)["total"]["eager"]["digest"] != stamps(snapshot)["jitter"]["eager"]["digest"]


def test_a_case_measured_again_with_the_same_numbers_gets_the_same_digest(runs):
    stdout, snapshot = runs["same_numbers"]
    assert "measured 1, reused 1" in stdout
    before, after = stamps(runs["first"][1])["total"], stamps(snapshot)["total"]
    assert after["fingerprint"] == before["fingerprint"] and after["code"] != before["code"]  # measured again
    assert after["eager"] == before["eager"]
    same = runs["same_diff"]
    assert same.returncode == 0 and "no differences" in same.stdout, same.stdout + same.stderr


def test_a_reused_record_keeps_its_digest(runs):
    _, snapshot = runs["same_numbers"]
    # jitter's code did not change: its record was reused, stamp (time, code, digest) and all
    assert stamps(snapshot)["jitter"] == stamps(runs["first"][1])["jitter"]
    assert "eager" in stamps(snapshot)["jitter"]


def test_moved_numbers_fail_the_gate_naming_each_case(runs):
    stdout, snapshot = runs["moved"]
    assert "measured 2, reused 0" in stdout
    assert statuses(snapshot) == statuses(runs["first"][1])  # every path still works: only the digests tell
    diff = runs["regressions"]
    assert diff.returncode == 1, diff.stdout + diff.stderr
    regressed = diff.stdout.split("regressed (2):")[1].split("\n2 regressed")[0]
    machine = snapshot["environments"]["cpu"]["device_name"]
    for name in CASES:
        old, new = stamps(runs["first"][1])[name]["eager"]["digest"], stamps(snapshot)[name]["eager"]["digest"]
        assert (f"{name} [cpu] eager output changed (digest {old[:12]} -> {new[:12]}, torch {torch.__version__}, "
                f"{machine})") in regressed


def test_allow_eager_lets_them_through_as_changes(runs):
    allowed = runs["allowed"]
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "0 regressed, 0 fixed, 2 changed" in allowed.stdout
    assert "total [cpu] eager output changed" in allowed.stdout.split("changed (2):")[1]


def test_digests_of_another_torch_are_not_compared(runs):
    other = runs["other_torch"]
    assert other.returncode == 0, other.stdout + other.stderr
    assert "eager output changed" not in other.stdout
    assert ("eager output not compared for 2 case(s): measured on different machines or torch versions "
            f"(torch 2.12.0+cpu -> {torch.__version__})") in other.stdout


def test_merging_shard_parts_keeps_each_digest(runs):
    from sphinx_kexport.probe.survey.merge import merge_parts

    where = runs["where"]
    whole = json.loads((where / "support.json").read_text())
    parts = []
    for keep in CASES:  # a part per case, as two shards write them
        part = json.loads(json.dumps(whole))
        for case in part["cases"]:
            if case["name"] != keep:
                case["results"], case["measured"] = {}, {}
        part.update(complete=False, missing=[name for name in CASES if name != keep])
        parts.append(where / f"part-{keep}.json")
        parts[-1].write_text(json.dumps(part))
    merged = merge_parts(parts).snapshot
    assert stamps(merged) == stamps(whole)


def _eager_digest(threads: int, name: str) -> str:
    """The digest of ``name``'s eager outputs, measured by the probe's own code in this process on ``threads``."""
    from sphinx_kexport.probe.measure.eager_digest import digest
    from sphinx_kexport.probe.measure.locate import library_root
    from sphinx_kexport.probe.measure.measurement import Measurement

    sys.path[:0] = [str(PROJECT), str(PROJECT / "cases")]
    saved = torch.get_num_threads()
    try:
        import cases_eagerlib

        spec = next(spec for spec in cases_eagerlib.CASES if spec.name == name)
        torch.set_num_threads(threads)
        measurement = Measurement(spec, "cpu", 18, library_root("eagerlib"))
        assert measurement.eager() is None
        return digest(measurement.reference)
    finally:
        torch.set_num_threads(saved)
        del sys.path[:2]


def test_the_digest_does_not_depend_on_the_workers_thread_count():
    # a worker's threads are the CPUs over --jobs; torch sums a million floats to another last bit on 1 and 4
    assert _eager_digest(1, "total") == _eager_digest(4, "total")
    assert _eager_digest(1, "jitter") == _eager_digest(4, "jitter") == _eager_digest(1, "jitter")  # seeded


def test_the_pages_compare_lists_no_eager_change(runs):
    from sphinx_kexport.snapshot.diff import compare

    where = runs["where"]
    base, moved = (json.loads((where / name).read_text()) for name in ("base.json", "support.json"))
    assert compare(base, moved) == []  # every status the same: the page sees nothing
    assert {(c.case, c.path, c.kind) for c in compare(base, moved, eager=True)} == {
        ("total", "eager", "changed"), ("jitter", "eager", "changed")}


def test_a_record_resumed_from_the_work_directory_keeps_its_digest(tmp_path):
    """An interrupted run's record (written as its case ended) carries the digest into the resumed run's stamp."""
    from sphinx_kexport.probe.cases.inventory import InventoryCase
    from sphinx_kexport.probe.measure.locate import NO_LIBRARY
    from sphinx_kexport.probe.run.outcomes import Outcomes
    from sphinx_kexport.probe.run.task import Task
    from sphinx_kexport.probe.run.workdir import WorkDir
    from sphinx_kexport.probe.survey.plan import plan_survey
    from sphinx_kexport.snapshot.result_records import result, with_breaks

    work = WorkDir(tmp_path / "work")
    eager = {"digest": "ab" * 32, "torch": torch.__version__, "machine": "AMD EPYC"}
    task = Task("total", "cases_eagerlib", "total", "cpu", "fp", [], eager=eager,
                results={path: with_breaks(path, result("ok")) for path in ("onnx", "export", "compile")})
    Outcomes(work, NO_LIBRARY).finished(task)
    case = InventoryCase(name="total", local_name="total", module="cases_eagerlib", package="eagerlib", ref="",
                         origin="hand-written", skip=None, shapes=((4,),), definition={})
    plan = plan_survey([case], ["cpu"], lambda case, device: ("fp",), work, {})
    assert not plan.tasks and plan.stamps[("total", "cpu")]["eager"] == eager


def test_a_digest_that_is_no_sha256_is_refused_naming_the_case_and_field(runs, tmp_path):
    from sphinx_kexport.snapshot import SnapshotError, read_snapshot

    snapshot = json.loads((runs["where"] / "base.json").read_text())
    snapshot["cases"][0]["measured"]["cpu"]["eager"]["digest"] = "a1b2c3"
    (tmp_path / "bad.json").write_text(json.dumps(snapshot))
    with pytest.raises(SnapshotError) as raised:
        read_snapshot(tmp_path / "bad.json")
    assert ("case #0 ('total') field measured.cpu.eager.digest: expected a SHA-256 digest (64 lowercase "
            "hexadecimal digits), found 'a1b2c3'") in str(raised.value)
