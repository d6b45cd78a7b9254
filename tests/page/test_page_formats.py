"""Inputs and selections: Kornia's committed format read unchanged; a
two-device snapshot with disagreeing rows; ``:packages:`` and ``:devices:``.
"""

from __future__ import annotations

import json
import re

import pytest
from page_support import ROOTS, counts, output, soup, tables, warnings

from sphinx_kexport.page.nodes import kexport_page
from sphinx_kexport.snapshot import SUPPORTED


def _ratio(cases, path):
    probed = [c for c in cases if c[path] != "n/a"]
    supported = [c for c in probed if c[path] in SUPPORTED]
    return f"{len(supported)} / {len(probed)}"


def test_kornia_format_is_read_unchanged(build_once):
    source = ROOTS / "test-kornia" / "_data" / "export_support.json"
    before = source.read_bytes()
    raw = json.loads(before)
    app = build_once("kornia", "html")
    assert warnings(app) == ""
    assert source.read_bytes() == before

    listed = [c for c in raw["cases"] if not all(c[p] == "n/a" for p in ("onnx", "export", "compile"))]
    page = soup(app).select_one("div.kexport")
    found = counts(page.select_one(".kexport-cards"))
    assert found["onnx-cpu"] == _ratio(listed, "onnx")
    assert found["export-cpu"] == _ratio(listed, "export")
    assert found["compile-cpu"] == _ratio(listed, "compile")
    assert found["rows"] == str(len(listed))
    assert found["operators"] == str(len({(c["package"], c["operator"]) for c in listed}))

    measured = page.select_one("p.kexport-measured").get_text() + page.select_one("ul.kexport-environments").get_text()
    for value in (raw["generated_at"], raw["kornia"], raw["revision"], raw["torch"], raw["onnxruntime"],
                  raw["onnxscript"], raw["python"], f"opset {raw['opset']}"):
        assert str(value) in measured

    rows = [row for table in tables(app.env.get_doctree("index")) for row in table["rows"]]
    assert len(rows) == len(listed)
    jiggle = next(r for r in rows if r["name"] == "ColorJiggle[random]")
    assert jiggle["where"] == ["kornia/augmentation/_2d/intensity/color_jiggle.py:117"]
    assert [c["status"] for c in jiggle["cells"]] == ["fail", "fail", "fail"]


@pytest.fixture(scope="module")
def two(build_once):
    return build_once("twodevice", "html")


def test_two_devices_get_a_column_per_path_and_device(two):
    assert warnings(two) == ""
    page = soup(two).select_one("div.kexport")
    cards = counts(page.select_one(".kexport-cards"))
    assert cards == {
        "onnx-cpu": "3 / 4", "onnx-cuda": "1 / 3", "export-cpu": "4 / 4", "export-cuda": "3 / 3",
        "compile-cpu": "4 / 4", "compile-cuda": "2 / 3",
        "pass-all": "1", "rows": "4", "pass-all-cpu": "3", "pass-all-cuda": "0",
        "operators": "4", "onnx-operators": "3",
    }
    card = page.select_one(".kexport-card-onnx")
    assert [d.get_text() for d in card.select(".kexport-card-device")] == ["CPU", "CUDA"]
    environments = page.select_one("ul.kexport-environments").get_text()
    assert "NVIDIA H200" in environments and "CUDAExecutionProvider" in environments
    assert "CUDA 13.0" in environments and "driver 580.1" in environments
    # the summary's columns go path by path, each path's title over its devices
    header = [[(th.get_text(), th.get("colspan"), th.get("rowspan")) for th in tr.select("th")]
              for tr in page.select("table.kexport-summary thead tr")]
    assert header == [
        [("Package", None, "2"), ("Probed", None, "2"), ("ONNX", "2", None), ("torch.export", "2", None),
         ("torch.compile", "2", None), ("All paths", None, "2")],
        [("CPU", None, None), ("CUDA", None, None)] * 3,
    ]
    first = page.select_one("table.kexport-summary tr.kexport-summary-row")
    assert [c["class"][1] for c in first.select(".kexport-count")][1:7] == [
        "kexport-count--onnx-cpu", "kexport-count--onnx-cuda", "kexport-count--export-cpu",
        "kexport-count--export-cuda", "kexport-count--compile-cpu", "kexport-count--compile-cuda"]


def test_disagreeing_rows_and_devices_not_probed(two):
    rows = {row["name"]: row for table in tables(two.env.get_doctree("index")) for row in table["rows"]}
    assert rows["color.rgb_to_gray"]["disagree"] is True
    assert rows["geometry.warp_affine"]["disagree"] is True
    assert rows["color.hsv_to_rgb"]["disagree"] is False
    not_probed = rows["geometry.cpu_only"]["cells"]
    assert [(c["key"], c["status"]) for c in not_probed][3:] == [
        ("onnx-cuda", "n/a"), ("export-cuda", "n/a"), ("compile-cuda", "n/a")]
    assert rows["color.rgb_to_gray"]["details"] == [
        {"labels": "torch.compile (CUDA)", "text": "triton: no kernel for uint8", "columns": ["compile-cuda"]}]


def test_devices_and_packages_options_select_columns_and_rows(two):
    doctree = two.env.get_doctree("cuda_only")
    page = next(doctree.findall(kexport_page))
    assert page["devices"] == ["cuda"]
    found = tables(doctree)
    assert [t["package"] for t in found] == ["mylib.color"]
    assert [c["key"] for c in found[0]["columns"]] == ["onnx-cuda", "export-cuda", "compile-cuda"]
    html = soup(two, "cuda_only.html").select_one("div.kexport")
    assert counts(html.select_one(".kexport-cards")) == {
        "onnx-cuda": "1 / 2", "export-cuda": "2 / 2", "compile-cuda": "1 / 2",
        "pass-all": "0", "rows": "2", "operators": "2", "onnx-operators": "1"}
    assert [s["id"] for s in html.select("section")] == ["export-support-mylib-color"]


def test_packages_option_keeps_the_given_order(make_app, tmp_path):
    from page_support import copy_root

    src = copy_root("basic", tmp_path)
    index = src / "index.rst"
    index.write_text(index.read_text().replace(
        ".. export-support:: _data/export_support.json",
        ".. export-support:: _data/export_support.json\n   :packages: mylib.utils mylib.color"))
    app = make_app("html", srcdir=src, freshenv=True)
    app.build()
    assert warnings(app) == ""
    assert [t["package"] for t in tables(app.env.get_doctree("index"))] == ["mylib.utils", "mylib.color"]


def test_two_device_text_rendition(build_once):
    app = build_once("twodevice", "text")
    assert warnings(app) == ""
    lines = output(app, "index.txt").splitlines()
    header = lines.index("Operator     ONNX  torch.export  torch.compile  ONNX  torch.export  torch.compile")
    assert lines[header + 1] == "             CPU   CPU           CPU            CUDA  CUDA          CUDA"
    assert "rgb_to_gray  yes   yes           yes            yes   yes           no" in lines
    text = " ".join(line.strip() for line in lines)
    assert "torch.compile (CUDA): triton: no kernel for uint8 (fix: unclassified) (at mylib/color/gray.py:3)" in text


def test_two_pages_in_one_document_keep_ids_unique(make_app, tmp_path):
    from page_support import copy_root

    src = copy_root("basic", tmp_path)
    index = src / "index.rst"
    index.write_text(index.read_text() + "\nAgain\n-----\n\n.. export-support:: _data/export_support.json\n")
    app = make_app("html", srcdir=src, freshenv=True)
    app.build()
    assert warnings(app) == ""
    page = soup(app)
    ids = [element["id"] for element in page.select("[id]")]
    assert len(ids) == len(set(ids))
    assert "export-support-mylib-color" in ids and "export-support-mylib-color-2" in ids
    second = tables(app.env.get_doctree("index"))[5]
    assert second["rows"][0]["id"].endswith("-2") and second["table_id"].endswith("-2")


def test_incomplete_snapshot_shows_a_warning_with_the_missing_cases(make_app, tmp_path):
    from page_support import copy_root

    src = copy_root("basic", tmp_path)
    snapshot = src / "_data" / "export_support.json"
    data = json.loads(snapshot.read_text())
    data["complete"] = False
    data["missing"] = ["color.lab_to_rgb", "geometry.remap"]
    snapshot.write_text(json.dumps(data))
    app = make_app("html", srcdir=src, freshenv=True)
    app.build()
    assert warnings(app) == ""
    notice = soup(app).select_one("div.kexport div.warning.kexport-incomplete")
    assert notice is not None
    assert [code.get_text() for code in notice.select("code")] == ["color.lab_to_rgb", "geometry.remap"]
    assert "2 cases were not measured" in notice.get_text()


def test_a_run_restricted_with_only_says_so_instead_of_warning(make_app, tmp_path):
    """The cases --only left out have no results: a note names the selection, no warning calls them lost, and
    "Not probed" does not list them as having nothing to capture. A case lost otherwise still gets the warning."""
    from page_support import copy_root

    src = copy_root("basic", tmp_path)
    snapshot = src / "_data" / "export_support.json"
    data = json.loads(snapshot.read_text())
    names = [c["name"] for c in data["cases"]]
    for case in data["cases"][1:]:
        case["results"] = {}
    data["complete"], data["missing"] = False, names[1:]
    data["selection"] = {"only": ["color.rgb"], "left_out": names[1:]}
    snapshot.write_text(json.dumps(data))
    app = make_app("html", srcdir=src, freshenv=True)
    app.build()
    assert warnings(app) == ""
    page = soup(app)
    assert page.select_one(".kexport-incomplete") is None
    note = page.select_one("div.kexport div.note.kexport-selection")
    assert [code.get_text() for code in note.select("code")] == ["--only color.rgb"]
    assert " ".join(note.get_text().split()) == (
        "Note This run measured only the cases matching --only color.rgb: the other 7 registered cases have no "
        "results here and the figures below leave them out. Run the probe without --only to measure every case.")
    assert "nothing to capture" not in page.get_text() and "geometry.camera.project_points" not in page.get_text()

    data["selection"]["left_out"] = names[2:]  # one selected case lost its results (its shard failed, say)
    snapshot.write_text(json.dumps(data))
    app = make_app("html", srcdir=src, freshenv=True)
    app.build()
    page = soup(app)
    assert "the other 6 registered cases" in page.select_one("div.note.kexport-selection").get_text()
    warning = page.select_one("div.warning.kexport-incomplete")
    assert [code.get_text() for code in warning.select("code")] == [names[1]]
    assert "1 case was not measured" in warning.get_text()


def test_two_device_latex_fits_six_status_columns(build_once):
    app = build_once("twodevice", "latex")
    assert warnings(app) == ""
    tex = output(app, "mylib.tex")
    spec = tex[tex.index(r"\begin{longtable}{") + len(r"\begin{longtable}{"):].split("\n", 1)[0]
    widths = [float(w) for w in re.findall(r"p\{([0-9.]+)\\linewidth\}", spec)]
    assert len(widths) == 7 and sum(widths) + 6 * 0.013 <= 1.0
