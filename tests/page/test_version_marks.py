"""A page across torch versions, in plain Python: the since/regressed rule (``model.version_marks``),
telling versions apart and ordering them (``model.versions``), and matching cases by name
(``model.version_history``). No Sphinx build: the builds are in test_versions_page.py."""

from __future__ import annotations

import copy
import json

import pytest
from page_support import ROOTS

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.page.model.version_history import History
from sphinx_kexport.page.model.version_marks import DIFFERS, REGRESSED, SAME, SINCE, VARIES, version_mark
from sphinx_kexport.page.model.versions import order_versions, release, torch_version, version_key
from sphinx_kexport.snapshot import SnapshotError, build

V3 = ["2.11.0", "2.13.0", "2.15.0"]
V4 = ["2.9.0", "2.11.0", "2.13.0", "2.15.0"]


@pytest.mark.parametrize("statuses, versions, kind, version, words", [
    (["ok", "ok", "ok"], V3, SAME, "", ""),
    (["fail", "fail", "fail"], V3, SAME, "", ""),
    (["fail", "ok", "ok"], V3, SINCE, "2.13.0", "since torch 2.13.0"),
    (["mismatch", "fail", "ok-breaks"], V3, SINCE, "2.15.0", "since torch 2.15.0"),  # breaks still run
    (["fail", "ok-unverified", "ok"], V3, SINCE, "2.13.0", "since torch 2.13.0"),  # random: shapes checked
    (["ok", "ok", "fail"], V3, REGRESSED, "2.15.0", "regressed in torch 2.15.0"),
    (["ok-breaks", "mismatch", "fail"], V3, REGRESSED, "2.13.0", "regressed in torch 2.13.0"),
    (["ok", "fail", "ok"], V3, VARIES, "", "varies by version"),
    (["fail", "ok", "fail", "ok"], V4, VARIES, "", "varies by version"),
    (["ok", "ok-breaks", "ok"], V3, DIFFERS, "", "differs by version"),  # works throughout
    (["fail", "mismatch", "fail"], V3, DIFFERS, "", "differs by version"),  # fails throughout
    (["ok", "timeout", "ok"], V3, DIFFERS, "", "differs by version"),  # not known is not a failure
    (["n/a", "ok", "ok"], V3, DIFFERS, "", "differs by version"),  # n/a is not a failure either
    # unknown versions are skipped: the first version *known* to work, or to fail
    (["fail", "timeout", "ok"], V3, SINCE, "2.15.0", "since torch 2.15.0"),
    (["ok", "n/a", "fail"], V3, REGRESSED, "2.15.0", "regressed in torch 2.15.0"),
    (["ok", "fail", "timeout"], V3, REGRESSED, "2.13.0", "regressed in torch 2.13.0"),
    # a case some versions lack: only the versions it has are passed in
    (["fail", "ok"], ["2.13.0", "2.15.0"], SINCE, "2.15.0", "since torch 2.15.0"),
    (["ok"], ["2.15.0"], SAME, "", ""),
])
def test_version_mark(statuses, versions, kind, version, words):
    mark = version_mark(statuses, versions)
    assert (mark.kind, mark.version, mark.words) == (kind, version, words)


def test_version_mark_needs_one_status_per_version():
    with pytest.raises(ValueError):
        version_mark(["ok", "fail"], V3)


def test_versions_sort_numerically_without_their_local_part():
    texts = ["2.13.0+cu132", "2.9.1", "2.11.0+cpu", "2.14.0rc1", "2.14.0", "2.14.0.dev20261201", "2.9"]
    assert sorted(texts, key=version_key) == ["2.9", "2.9.1", "2.11.0+cpu", "2.13.0+cu132", "2.14.0.dev20261201",
                                              "2.14.0rc1", "2.14.0"]
    assert release("2.13.0+cu132") == "2.13.0"
    with pytest.raises(ValueError):
        version_key("nightly")


def _data(name: str) -> dict:
    return json.loads((ROOTS / "test-versions" / "_data" / name).read_text())


def _loaded(*datas: dict) -> list:
    return [(build(d, f"v{i}.json"), d, f"v{i}.json") for i, d in enumerate(datas)]


def _with_env(data: dict, **environments) -> dict:
    data = copy.deepcopy(data)
    data["environments"] = {k: dict(data["environments"]["cpu"], **v) for k, v in environments.items()}
    return data


def test_torch_version_is_one_per_snapshot_and_says_what_to_do():
    data = _data("torch-2.13.0.json")
    two = _with_env(data, cpu={"torch": "2.13.0+cpu"}, cuda={"torch": "2.13.0+cu132"})
    assert torch_version(build(two, "two.json"), "two.json") == "2.13.0"
    mixed = _with_env(data, cpu={"torch": "2.13.0+cpu"}, cuda={"torch": "2.12.0+cu132"})
    with pytest.raises(SnapshotError, match=r"^mixed.json: field environments: expected one torch version on "
                                            r"every device, found 2.13.0 \(CPU\) and 2.12.0 \(CUDA\)\. Survey"):
        torch_version(build(mixed, "mixed.json"), "mixed.json")
    blank = _with_env(data, cpu={"torch": ""})
    with pytest.raises(SnapshotError, match=r"^blank.json: field environments.cpu.torch: expected the torch "
                                            r"version .* found nothing\. Regenerate"):
        torch_version(build(blank, "blank.json"), "blank.json")
    odd = _with_env(data, cpu={"torch": "nightly"})
    with pytest.raises(SnapshotError, match=r"^odd.json: .*expected a version such as 2.13.0\+cpu, found 'nightly'"):
        torch_version(build(odd, "odd.json"), "odd.json")


def test_versions_are_ordered_by_torch_not_by_argument_and_must_differ():
    new, old, mid = _data("torch-2.15.0.json"), _data("torch-2.11.0.json"), _data("torch-2.13.0.json")
    assert [v.label for v in order_versions(_loaded(new, old, mid))] == V3
    with pytest.raises(SnapshotError, match=r"^v1.json: torch 2.15.0, the same as v0.json: expected one "
                                            r"snapshot per torch version\. Give the directive one of them"):
        order_versions(_loaded(new, copy.deepcopy(new)))
    other = copy.deepcopy(old)
    other["library"]["name"] = "otherlib"
    with pytest.raises(SnapshotError, match=r"^v1.json: library 'otherlib', but v0.json surveys 'verlib': "
                                            r"expected snapshots of one library"):
        order_versions(_loaded(new, other))


def test_cases_are_matched_by_name_and_shown_with_the_versions_they_have():
    history = History.of(order_versions(_loaded(*(_data(f"torch-{v}.json") for v in V3))))
    model = build_model(history.display, counted=history.in_newest)
    rows = {row.case.name: row for row in model.rows}
    assert set(rows) == {"color.rgb_to_gray", "color.hsv_to_rgb", "geometry.warp_affine",
                         "geometry.project_points", "geometry.Affine[random]", "filters.blur", "filters.median"}
    assert model.counts.rows == 6  # filters.median is not in 2.15.0: shown, not counted
    assert history.row_payload(rows["color.rgb_to_gray"]) is None  # the same everywhere: nothing extra
    hsv = history.row_payload(rows["color.hsv_to_rgb"])
    assert hsv["absent"] is False and list(hsv["cells"]) == ["onnx-cpu"]
    assert hsv["cells"]["onnx-cpu"]["words"] == "since torch 2.13.0"
    assert [(s["version"], s["text"]) for s in hsv["cells"]["onnx-cpu"]["strip"]] == [
        ("2.11.0", "no"), ("2.13.0", "yes"), ("2.15.0", "yes")]
    assert hsv["cells"]["onnx-cpu"]["strip"][0]["detail"] == "no ONNX lowering for aten::atan2"
    assert history.row_payload(rows["geometry.warp_affine"])["cells"]["compile-cpu"]["kind"] == REGRESSED
    assert history.row_payload(rows["geometry.project_points"])["cells"]["export-cpu"]["kind"] == VARIES
    assert history.row_payload(rows["geometry.Affine[random]"])["cells"]["compile-cpu"]["kind"] == DIFFERS
    blur = history.row_payload(rows["filters.blur"])
    assert (blur["present"], blur["absent"], blur["cells"]) == (["2.13.0", "2.15.0"], True, {})
    median = history.row_payload(rows["filters.median"])
    assert median["present"] == ["2.11.0", "2.13.0"] and rows["filters.median"].cells[0].result.status == "fail"
    assert [(c.case, c.path, c.old_status, c.new_status) for c in history.regressions(model)] == [
        ("geometry.warp_affine", "compile", "ok", "fail")]


def test_a_case_an_incomplete_snapshot_has_not_measured_is_shown_with_the_versions_that_measured_it():
    # the newest version's survey is under way: its file lists every case, but filters.blur has no results
    newest = _data("torch-2.15.0.json")
    for case in newest["cases"]:
        if case["name"] == "filters.blur":
            case["results"] = {}
            case.pop("measured", None)
    newest.update(complete=False, missing=["filters.blur"])
    history = History.of(order_versions(_loaded(_data("torch-2.11.0.json"), _data("torch-2.13.0.json"), newest)))
    model = build_model(history.display, counted=history.in_newest)
    rows = {row.case.name: row for row in model.rows}
    blur = history.row_payload(rows["filters.blur"])
    assert (blur["present"], blur["absent"]) == (["2.13.0"], True)  # 2.11.0 lacks it, 2.15.0 has no word yet
    assert rows["filters.blur"].cells[0].result.status != "n/a"  # 2.13.0's result, not "not probed"
    assert not history.in_newest(rows["filters.blur"].case)  # and not counted in 2.15.0's figures
