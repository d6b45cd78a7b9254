"""The survey's stages on plain data, in-process: joining the inventory, planning, reuse, assembly, merge.

No torch and no subprocess: these are the parent's jobs, and the parent holds only the inventory.
The real probe runs (tests/probe/test_probe_*.py) show the same rules end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinx_kexport.probe.base.reuse.decide import reusable_keys
from sphinx_kexport.probe.base.reuse.own_code import measuring_code
from sphinx_kexport.probe.cases.inventory import InventoryCase, LoadError, join_inventory
from sphinx_kexport.probe.run.workdir import WorkDir
from sphinx_kexport.probe.survey.assemble import build_snapshot, header_to_write
from sphinx_kexport.probe.survey.merge import MergeError, MergeGap, merge_parts
from sphinx_kexport.probe.survey.plan import estimate, plan_survey
from sphinx_kexport.probe.survey.reuse import reusable_results
from sphinx_kexport.snapshot import SCHEMA_VERSION, dump_snapshot, normalise
from sphinx_kexport.snapshot.result_records import result, timed_out, with_breaks
from sphinx_kexport.snapshot.upgrade import upgrade_format_1

TOOLS = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "1", "python": "3.11"}
ENV = dict(TOOLS, platform="p", device_name="d", cuda=None, driver=None, onnxruntime_provider="CPU", opset=18,
           probed_at="2026-01-01T00:00:00Z")
LIBRARY = {"name": "lib", "version": "1.0", "revision": "1.0"}
PROBE = {"probe": measuring_code()}  # a record this probe measured (an older probe's names none)


def inventory_case(name, *, origin="hand-written", ref="", shapes=((1, 3),), skip=None, value="v",
                   module="cases_a") -> InventoryCase:
    entry = {"name": name, "package": "lib.a", "section": "", "operator": name.split("[")[0], "variant": "",
             "ref": ref, "origin": origin, "note": "", "check": True, "results": {},
             "inputs": [{"shape": list(s), "dtype": "float32"} for s in shapes]}
    return InventoryCase(name=name, local_name=name, module=module, package="lib.a", ref=ref, origin=origin,
                         skip=skip, shapes=shapes, definition={"name": name, "inputs": value}, entry=entry)


def all_ok():
    return {path: with_breaks(path, result("ok")) for path in ("onnx", "export", "compile")}


def keys_for(case, device):
    return reusable_keys(case.definition, device, 18, "1.0", TOOLS, True)


# -- joining the modules' inventories


def test_a_discovered_name_another_module_holds_is_qualified_with_its_package():
    first = inventory_case("scale[doc]", origin="docstring", module="cases_a")
    second = inventory_case("scale[doc]", origin="docstring", module="cases_b")
    cases, repeats = join_inventory([("a.py", [first]), ("b.py", [second])])
    assert [c.name for c in cases] == ["scale[doc]", "scale[doc][lib.a]"] and not repeats
    renamed = cases[1]
    assert renamed.local_name == "scale[doc]"  # how its worker finds it in its module
    assert renamed.entry["name"] == renamed.definition["name"] == "scale[doc][lib.a]"


def test_a_hand_written_name_registered_twice_is_a_mistake_naming_both_modules():
    with pytest.raises(LoadError, match=r"'blur' is registered in a.py and in b.py"):
        join_inventory([("a.py", [inventory_case("blur")]), ("b.py", [inventory_case("blur")])])
    with pytest.raises(LoadError, match="register no cases"):
        join_inventory([("a.py", [])])


def test_a_discovered_case_that_repeats_a_hand_written_one_is_dropped_and_the_hand_written_wins():
    hand = inventory_case("blur[reflect]", ref="lib.a.blur", shapes=((1, 3, 8, 8),))
    doc = inventory_case("blur[doc]", origin="docstring", ref="lib.a.blur", shapes=((1, 3, 8, 8),))
    other_shape = inventory_case("blur[doc 2]", origin="docstring", ref="lib.a.blur", shapes=((2, 3, 8, 8),))
    cases, repeats = join_inventory([("a.py", [hand]), ("doc.py", [doc, other_shape])])
    assert [c.name for c in cases] == ["blur[reflect]", "blur[doc 2]"]
    assert [(d.name, h.name) for d, h in repeats] == [("blur[doc]", "blur[reflect]")]


# -- planning


def test_the_plan_measures_what_is_new_and_reuses_what_the_work_directory_or_the_snapshot_holds(tmp_path):
    resumed, cached, changed, fresh = (inventory_case(n) for n in ("resumed", "cached", "changed", "new"))
    skipped = inventory_case("skipped", skip="needs weights")
    work = WorkDir(tmp_path / "work")
    work.save("resumed", "cpu", keys_for(resumed, "cpu")[0], all_ok(), measured_at="2026-01-02T00:00:00Z")
    previous = build_snapshot(cases=[cached, changed], measured={(c.name, "cpu"): all_ok() for c in (cached, changed)},
                              environments={"cpu": ENV}, library=LIBRARY, previous=None,
                              stamps={("cached", "cpu"): {"fingerprint": keys_for(cached, "cpu")[0], **PROBE,
                                                          "measured_at": "2026-01-01T00:00:00Z"},
                                      ("changed", "cpu"): {"fingerprint": "an older definition",
                                                           "measured_at": "2026-01-01T00:00:00Z"}})[0]
    reusable = {"cpu": reusable_results(previous, "cpu", TOOLS, 18, "1.0")}
    plan = plan_survey([resumed, cached, changed, fresh, skipped], ["cpu"], keys_for, work, reusable)
    assert [t.name for t in plan.tasks] == ["changed", "new"]
    assert plan.tasks[0].fingerprint == keys_for(changed, "cpu")[0] and plan.tasks[0].module == "cases_a"
    assert len(plan.resumed) == len(plan.cached) == len(plan.skips) == 1 and plan.total == 5
    assert plan.stamps[("resumed", "cpu")]["measured_at"] == "2026-01-02T00:00:00Z"
    assert plan.stamps[("cached", "cpu")]["measured_at"] == "2026-01-01T00:00:00Z"
    assert plan.measured[("skipped", "cpu")]["onnx"] == result("n/a", "needs weights", "skip")
    assert plan.measured[("skipped", "cpu")]["compile"]["graph_breaks"] == 0


def test_a_skip_entry_keeps_its_stamp_while_it_records_the_same_skip():
    # issue 61: every written snapshot re-stamped the kornia example's five skip entries
    same, reworded = inventory_case("same", skip="needs weights"), inventory_case("reworded", skip="needs weights")
    first = plan_survey([same, reworded], ["cpu"], keys_for, None, {})
    previous = build_snapshot(cases=[same, reworded], measured=first.measured, environments={"cpu": ENV},
                              library=LIBRARY, previous=None,
                              stamps={cell: dict(stamp, measured_at="2026-01-01T00:00:00Z")
                                      for cell, stamp in first.stamps.items()})[0]
    reworded = inventory_case("reworded", skip="needs pretrained weights")  # its skip changed: a new stamp
    plan = plan_survey([same, reworded], ["cpu"], keys_for, None,
                       {"cpu": reusable_results(previous, "cpu", TOOLS, 18, "1.0")})
    assert plan.stamps[("same", "cpu")] == {"fingerprint": keys_for(same, "cpu")[0],
                                            "measured_at": "2026-01-01T00:00:00Z"}
    assert plan.stamps[("reworded", "cpu")]["measured_at"] > "2026-01-01T00:00:00Z"


def test_a_devices_header_is_the_bases_unless_this_run_measured_a_case_on_it():
    here = dict(ENV, platform="Linux-6.18-this-host", probed_at="2026-02-02T00:00:00Z", driver="550")
    assert header_to_write(here, ENV, measured_here=False) is ENV  # every result under it was measured there
    assert header_to_write(here, ENV, measured_here=True) is here
    assert header_to_write(here, None, measured_here=False) is here  # no base, or its results are not kept
    assert header_to_write(dict(here, torch="2.14.0"), ENV, measured_here=False)["torch"] == "2.14.0"


def test_the_dry_runs_estimate_sums_what_the_cells_it_would_measure_took_the_last_time():
    kept, changed, fresh = inventory_case("kept"), inventory_case("changed"), inventory_case("new")
    stamps = {("kept", "cpu"): {"fingerprint": keys_for(kept, "cpu")[0], **PROBE, "measured_at": "t", "seconds": 40.0},
              ("changed", "cpu"): {"fingerprint": "an older definition", "measured_at": "t", "seconds": 7.5}}
    previous = build_snapshot(cases=[kept, changed], measured={cell: all_ok() for cell in stamps},
                              environments={"cpu": ENV}, library=LIBRARY, previous=None, stamps=stamps)[0]
    plan = plan_survey([kept, changed, fresh], ["cpu"], keys_for, None,
                       {"cpu": reusable_results(previous, "cpu", TOOLS, 18, "1.0")})
    # the reused case costs nothing; the new one has no record to go by and is counted apart
    assert estimate(plan) == {"would_measure": ["changed [cpu]", "new [cpu]"], "measured_before": 1,
                              "estimated_worker_seconds": 7.5}


def test_results_measured_with_other_tools_are_not_reused():
    case = inventory_case("op")
    previous = build_snapshot(cases=[case], measured={("op", "cpu"): all_ok()}, environments={"cpu": ENV},
                              library=LIBRARY, previous=None,
                              stamps={("op", "cpu"): {"fingerprint": keys_for(case, "cpu")[0], **PROBE, "measured_at": "t"}})[0]
    assert reusable_results(previous, "cpu", TOOLS, 18, "1.0")
    assert not reusable_results(previous, "cpu", dict(TOOLS, torch="2.14.0"), 18, "1.0")
    assert not reusable_results(previous, "cpu", TOOLS, 17, "1.0")
    assert not reusable_results(previous, "cpu", TOOLS, 18, "1.1")


def test_a_default_torch_builds_results_are_reused_also_when_stamped_under_its_public_version():
    """torch 2.9.1's default build is ``2.9.1+cu128`` in the header; until the parent read torch's own version
    it stamped records under ``2.9.1``, so a rerun under that very build measured everything again."""
    build = dict(TOOLS, torch="2.9.1+cu128")
    env = dict(ENV, torch="2.9.1+cu128")
    old, new, other = inventory_case("old"), inventory_case("new"), inventory_case("other")
    keys = {name: reusable_keys(case.definition, "cpu", 18, "1.0", tools, True)[0]
            for name, case, tools in (("old", old, dict(TOOLS, torch="2.9.1")), ("new", new, build),
                                      ("other", other, dict(TOOLS, torch="2.9.0")))}
    previous = build_snapshot(cases=[old, new, other], measured={(n, "cpu"): all_ok() for n in keys},
                              environments={"cpu": env}, library=LIBRARY, previous=None,
                              stamps={(n, "cpu"): {"fingerprint": k, **PROBE, "measured_at": "t"} for n, k in keys.items()})[0]
    plan = plan_survey([old, new, other], ["cpu"],
                       lambda case, device: reusable_keys(case.definition, device, 18, "1.0", build, True),
                       None, {"cpu": reusable_results(previous, "cpu", build, 18, "1.0")})
    assert [t.name for t in plan.tasks] == ["other"] and len(plan.cached) == 2
    # what it stamps on what it measures is the exact build's fingerprint
    assert plan.tasks[0].fingerprint == reusable_keys(other.definition, "cpu", 18, "1.0", build, True)[0]
    assert not reusable_results(previous, "cpu", dict(TOOLS, torch="2.9.1+cpu"), 18, "1.0")  # another build


def test_a_timeout_under_a_smaller_limit_is_measured_again_and_under_the_same_limit_is_reused():
    slow, dyn_slow, fine = (inventory_case(n) for n in ("slow", "dyn_slow", "fine"))
    measured = {("fine", "cpu"): all_ok(),
                ("slow", "cpu"): dict(all_ok(), compile=with_breaks("compile", timed_out(
                    "ran past the time limit of 300 s during torch.compile", "", 300.0))),
                ("dyn_slow", "cpu"): dict(all_ok(), onnx=dict(result("ok"), dynamic={
                    "status": "timeout", "detail": "ran past the time limit of 300 s", "where": "",
                    "time_limit": 300.0}))}
    stamps = {(c.name, "cpu"): {"fingerprint": keys_for(c, "cpu")[0], **PROBE, "measured_at": "t"} for c in (slow, dyn_slow, fine)}
    previous = build_snapshot(cases=[slow, dyn_slow, fine], measured=measured, environments={"cpu": ENV},
                              library=LIBRARY, previous=None, stamps=stamps)[0]
    assert previous["cases"][0]["results"]["cpu"]["compile"]["status"] == "timeout"  # a status of its own
    assert set(reusable_results(previous, "cpu", TOOLS, 18, "1.0", 300.0)) == {"slow", "dyn_slow", "fine"}
    assert set(reusable_results(previous, "cpu", TOOLS, 18, "1.0", 600.0)) == {"fine"}
    assert set(reusable_results(previous, "cpu", TOOLS, 18, "1.0", 120.0)) == {"slow", "dyn_slow", "fine"}


def test_an_interrupted_runs_timeout_under_a_smaller_limit_is_measured_again(tmp_path):
    slow, fine = inventory_case("slow"), inventory_case("fine")
    work = WorkDir(tmp_path / "work")
    timed = dict(all_ok(), compile=with_breaks("compile", timed_out("ran past the time limit of 300 s", "", 300.0)))
    work.save("slow", "cpu", keys_for(slow, "cpu")[0], timed, measured_at="t")
    work.save("fine", "cpu", keys_for(fine, "cpu")[0], all_ok(), measured_at="t")
    same = plan_survey([slow, fine], ["cpu"], keys_for, work, {}, 300.0)
    assert same.tasks == [] and len(same.resumed) == 2
    larger = plan_survey([slow, fine], ["cpu"], keys_for, work, {}, 600.0)
    assert [t.name for t in larger.tasks] == ["slow"] and len(larger.resumed) == 1


# -- assembly


def test_assembly_lists_every_case_in_order_and_carries_over_a_device_not_probed_now():
    a, b = inventory_case("a"), inventory_case("b")
    cuda_env = dict(ENV, device_name="gpu", onnxruntime_provider="CUDA")
    previous = build_snapshot(cases=[a, b], measured={("a", "cuda"): all_ok(), ("b", "cuda"): all_ok()},
                              environments={"cuda": cuda_env}, library=LIBRARY, previous=None)[0]
    snapshot, notes = build_snapshot(cases=[a, b], measured={("a", "cpu"): all_ok()}, environments={"cpu": ENV},
                                     library=LIBRARY, previous=previous)
    assert snapshot["schema"] == SCHEMA_VERSION and [c["name"] for c in snapshot["cases"]] == ["a", "b"]
    assert set(snapshot["environments"]) == {"cpu", "cuda"} and not notes
    assert set(snapshot["cases"][0]["results"]) == {"cpu", "cuda"}
    assert snapshot["complete"] is False and snapshot["missing"] == ["b"]  # b was not measured on cpu
    normalise(json.loads(json.dumps(snapshot)))  # it validates


def test_assembly_drops_a_device_measured_with_other_tools_and_says_so():
    a = inventory_case("a")
    previous = build_snapshot(cases=[a], measured={("a", "cpu"): all_ok()}, environments={"cpu": ENV},
                              library=LIBRARY, previous=None)[0]
    snapshot, notes = build_snapshot(cases=[a, inventory_case("b")], measured={("b", "cpu"): all_ok()},
                                     environments={"cpu": dict(ENV, torch="2.14.0")}, library=LIBRARY,
                                     previous=previous)
    assert "cpu" not in snapshot["cases"][0]["results"] and "not carried over" in notes[0]


def test_assembly_does_not_carry_over_a_case_its_worker_could_not_build():
    a, b = inventory_case("a"), inventory_case("b")
    previous = build_snapshot(cases=[a, b], measured={("a", "cpu"): all_ok(), ("b", "cpu"): all_ok()},
                              environments={"cpu": ENV}, library=LIBRARY, previous=None)[0]
    # b was planned again (its definition changed) and its worker could not build it: the old results describe
    # another definition, so b is missing rather than shown with them; a, not measured now, is carried over
    snapshot, _ = build_snapshot(cases=[a, b], measured={}, environments={"cpu": ENV}, library=LIBRARY,
                                 previous=previous, not_carried={("b", "cpu")})
    assert "cpu" in snapshot["cases"][0]["results"] and snapshot["cases"][1]["results"] == {}
    assert snapshot["complete"] is False and snapshot["missing"] == ["b"]


# -- merge


def part(tmp_path: Path, name: str, measured: dict, cases=("a", "b"), env=ENV, without=()) -> Path:
    snapshot = build_snapshot(cases=[inventory_case(n) for n in cases], measured=measured, environments={"cpu": env},
                              library=LIBRARY, previous=None, objects_without_cases=list(without))[0]
    path = tmp_path / name
    dump_snapshot(snapshot, path)
    return path


def test_merge_joins_shard_parts_and_refuses_gaps_and_foreign_parts(tmp_path):
    first = part(tmp_path, "1.json", {("a", "cpu"): all_ok()})
    second = part(tmp_path, "2.json", {("b", "cpu"): all_ok()})
    merged = merge_parts([first, second])
    assert merged.snapshot["complete"] and [c["results"]["cpu"]["onnx"]["status"] for c in merged.snapshot["cases"]] \
        == ["ok", "ok"]
    with pytest.raises(MergeGap, match="1 of 2 cases have no result"):
        merge_parts([first])
    assert merge_parts([first], allow_incomplete=True).snapshot["missing"] == ["b"]
    with pytest.raises(MergeError, match="different case inventories"):
        merge_parts([first, part(tmp_path, "3.json", {("c", "cpu"): all_ok()}, cases=("a", "c"))])
    with pytest.raises(MergeError, match="different environments"):
        merge_parts([first, part(tmp_path, "4.json", {("b", "cpu"): all_ok()}, env=dict(ENV, torch="2.14.0"))])


def test_objects_without_cases_go_into_the_snapshot_and_through_a_merge_once(tmp_path):
    raised = {"ref": "lib.f", "package": "lib", "kind": "raised", "detail": "lib.f raised E: x"}
    unparsable = {"ref": "lib.g", "package": "lib", "kind": "unparsable", "detail": "line 3 of the docstring"}
    first = part(tmp_path, "1.json", {("a", "cpu"): all_ok()}, without=[raised, unparsable])
    second = part(tmp_path, "2.json", {("b", "cpu"): all_ok()}, without=[raised, unparsable])
    assert json.loads(first.read_text())["objects_without_cases"] == [raised, unparsable]
    assert merge_parts([first, second]).snapshot["objects_without_cases"] == [raised, unparsable]
    assert "objects_without_cases" not in merge_parts([part(tmp_path, "3.json", {("a", "cpu"): all_ok(),
                                                                                 ("b", "cpu"): all_ok()})]).snapshot


# -- format 1, upgraded on reading


def test_format_1_is_upgraded_from_its_words_once_and_then_read_by_fields():
    eager = result("n/a", "does not run eagerly with the probed inputs: RuntimeError: boom", "eager")
    no_tensor = result("n/a", "returns no tensor (a Python object), nothing to capture", "eager")
    old = {"schema": 1, "cases": [
        {"name": "a[doc]", "note": "from the docstring example of `lib.a`; x live", "results": {"cpu": {"onnx": eager}}},
        {"name": "b", "note": "hand", "results": {"cpu": {"onnx": no_tensor}}}]}
    new = upgrade_format_1(old)
    assert new["schema"] == 2 and old["schema"] == 1  # the input is left alone
    assert [c["origin"] for c in new["cases"]] == ["docstring", "hand-written"]
    assert new["cases"][0]["results"]["cpu"]["onnx"]["stage"] == "eager"
    assert new["cases"][1]["results"]["cpu"]["onnx"]["stage"] == "no-tensor"
