"""``:compare:``: what changed since an older snapshot, in real builds of tests/page/roots/test-features.

Between _data/old.json and _data/new.json: rgb_to_gray's torch.compile on
CUDA regressed, warp_affine's torch.export was fixed on CPU and CUDA, and
blur is a new case (changed, not a regression).
"""

from __future__ import annotations

import json
import os
import time

import pytest
from page_support import build, copy_root, output, soup, warnings

from sphinx_kexport.snapshot.diff import compare, count
from sphinx_kexport.snapshot import normalise, read_json

SINCE = "2026-10-01T09:00:00Z"


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("features", "html")


def _rows(app):
    doctree = app.env.get_doctree("index")
    return {r["name"]: r for t in doctree.findall(lambda n: n.tagname == "kexport_table") for r in t["rows"]}


def test_rows_carry_their_changes(html):
    rows = _rows(html)
    assert rows["color.rgb_to_gray"]["changes"] == [
        {"key": "compile-cuda", "kind": "regressed", "old": "ok", "new": "fail"}]
    assert rows["geometry.warp_affine"]["changes"] == [
        {"key": "export-cpu", "kind": "fixed", "old": "fail", "new": "ok"},
        {"key": "export-cuda", "kind": "fixed", "old": "fail", "new": "ok"}]
    assert {c["kind"] for c in rows["filters.blur<b>"]["changes"]} == {"changed"}  # a new case
    assert "changes" not in rows["color.hsv_to_rgb"]


def test_page_and_probe_diff_count_the_same(html):
    root = html.srcdir / "_data"
    old, _ = normalise(read_json(root / "old.json"))
    new, _ = normalise(read_json(root / "new.json"))
    expected = count(compare(old, new))
    rows = _rows(html)
    found = {"regressed": 0, "fixed": 0, "changed": 0}
    for row in rows.values():
        for change in row.get("changes", ()):
            found[change["kind"]] += 1
    assert found == expected == {"regressed": 1, "fixed": 2, "changed": 6}


def test_cards_say_how_many_regressed_and_were_fixed(html):
    cards = soup(html).select_one(".kexport-cards")
    lines = [p.get_text() for p in cards.select("p.kexport-card-changes")]
    assert lines == [
        f"0 regressed, 0 fixed since {SINCE}",
        f"0 regressed, 2 fixed since {SINCE} (CPU: 1 fixed; CUDA: 1 fixed)",
        f"1 regressed, 0 fixed since {SINCE} (CUDA: 1 regressed)",
        f"1 regressed, 2 fixed since {SINCE}, in 2 configurations",
    ]
    what = soup(html).select_one("p.kexport-changes").get_text()
    assert f"snapshot of {SINCE} (featurelib 1.2.0)" in what and "_data/old.json" in what
    assert "1 cell regressed" in what and "2 were fixed" in what
    # filters.blur<b> is not in the older snapshot: its cells are new, not "changed"
    assert "6 are new (a case or device the older snapshot lacks) and 0 changed otherwise" in what


def test_changed_cells_are_marked_with_words_not_colour_alone(html):
    page = soup(html)
    regressed = page.select("tr#kx-color-rgb-to-gray .kx-ch")
    assert [m.get_text() for m in regressed] == ["▼ regressed"]
    assert "kx-ch-regressed" in regressed[0]["class"]
    assert regressed[0]["title"] == f"was yes, now no (compared with {SINCE})"
    fixed = page.select("tr#kx-geometry-warp-affine .kx-ch")
    assert [m.get_text() for m in fixed] == ["▲ fixed", "▲ fixed"]
    assert not page.select("tr#kx-filters-blur-b .kx-ch")  # new: a change, not marked


def test_rows_carry_one_change_code_per_column_for_the_filter(html):
    page = soup(html)
    # columns in display order: ONNX CPU, ONNX CUDA, torch.export CPU, CUDA, torch.compile CPU, CUDA
    assert page.select_one("div.kexport")["data-cols"].split() == [
        "onnx-cpu", "onnx-cuda", "export-cpu", "export-cuda", "compile-cpu", "compile-cuda"]
    assert page.select_one("tr#kx-color-rgb-to-gray")["data-c"] == "-----r"
    assert page.select_one("tr#kx-geometry-warp-affine")["data-c"] == "--ff--"
    assert page.select_one("tr#kx-filters-blur-b")["data-c"] == "cccccc"
    assert not page.select_one("tr#kx-color-hsv-to-rgb").has_attr("data-c")


def test_controls_offer_the_changed_rows_filters(html):
    options = {o["value"]: o.get_text() for o in soup(html).select(".kexport-controls select[data-kx=filter] option")}
    assert options["regressed"] == f"regressed since {SINCE}"
    assert options["fixed"] == f"fixed since {SINCE}"
    assert options["changed"] == f"any change since {SINCE}"


def test_text_rendition_marks_changed_cells(build_once):
    app = build_once("features", "text")
    text = output(app, "index.txt")
    assert "no [regressed]" in text and "yes [fixed]" in text
    assert f"1 regressed, 2 fixed since {SINCE}" in text


def test_latex_and_man_mark_changed_cells(build_once):
    tex = output(build_once("features", "latex"), "featurelib.tex")
    assert r"\emph{{[}regressed{]}}" in tex and r"\emph{{[}fixed{]}}" in tex
    man = output(build_once("features", "man"), "featurelib.1")
    assert "[regressed]" in man


def test_without_compare_nothing_is_marked(build_once):
    app = build_once("basic", "html")
    page = soup(app)
    assert not page.select(".kx-ch, p.kexport-card-changes, p.kexport-changes")
    assert not page.select_one(".kexport-controls option[value=changed]")


def test_older_cases_with_no_row_here_are_counted_and_named_not_dropped(make_app, tmp_path):
    # another survey (Kornia's own page) names some operators otherwise: the page says which it could not compare
    src = copy_root("features", tmp_path)
    old = src / "_data" / "old.json"
    data = json.loads(old.read_text())
    for name in ("color.rgb_to_lab<i>", "geometry.Shear[random]"):
        data["cases"].append(dict(data["cases"][0], name=name))
    old.write_text(json.dumps(data))
    app = build(make_app("html", srcdir=src, freshenv=True))
    assert warnings(app) == ""
    what = soup(app).select_one("p.kexport-changes")
    assert what.get_text().endswith("2 of its 8 cases have no row of the same name on this page and are not "
                                    "compared: color.rgb_to_lab<i>, geometry.Shear[random].")
    assert what.find("i") is None  # the name is text, not markup
    # the counts of the cells it did compare are those of the page without them
    assert "1 cell regressed" in what.get_text() and "2 were fixed" in what.get_text()


def test_a_long_list_of_uncompared_cases_names_five_and_counts_the_rest():
    from sphinx_kexport.page.model.comparison import Comparison
    from sphinx_kexport.page.parts.changes import not_compared_sentence
    comparison = Comparison(source="old.json", generated_at=SINCE, library="", old_cases=17,
                            not_compared=[f"op{i}" for i in range(12)])
    assert not_compared_sentence(comparison) == ("12 of its 17 cases have no row of the same name on this page "
                                                 "and are not compared: op0, op1, op2, op3, op4 and 7 more.")
    one = Comparison(source="old.json", generated_at=SINCE, library="", old_cases=3, not_compared=["op"])
    assert not_compared_sentence(one) == "1 of its 3 cases has no row of the same name on this page and is not compared: op."


def test_every_older_case_with_a_row_says_nothing_about_uncompared_cases(html):
    assert "not compared" not in soup(html).select_one("p.kexport-changes").get_text()


@pytest.mark.parametrize("kind, content, expected", [
    ("missing", None, "_data/gone.json: no such file."),
    ("invalid JSON", "{ nope", "_data/gone.json: not valid JSON at line 1"),
    ("bad field", "BAD_FIELD", "_data/gone.json: case #0 ('color.rgb_to_gray') field results.cpu.onnx.status: "
                               "expected one of"),
])
def test_a_bad_compare_file_is_the_same_one_line_error(make_app, tmp_path, kind, content, expected):
    src = copy_root("features", tmp_path)
    if content == "BAD_FIELD":
        data = json.loads((src / "_data" / "old.json").read_text())
        data["cases"][0]["results"]["cpu"]["onnx"]["status"] = "sort of"
        content = json.dumps(data)
    if content is not None:
        (src / "_data" / "gone.json").write_text(content)
    index = src / "index.rst"
    index.write_text(index.read_text().replace(":compare: _data/old.json", ":compare: _data/gone.json"))
    app = build(make_app("html", srcdir=src, freshenv=True))
    lines = [line for line in warnings(app).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert expected in lines[0] and "index.rst" in lines[0]
    assert app.statuscode == 1
    assert soup(app).select_one("div.kexport") is None  # no half page


def test_editing_the_older_snapshot_rebuilds_the_page(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    build(make_app("html", srcdir=src, freshenv=True))
    old = src / "_data" / "old.json"
    data = json.loads(old.read_text())
    data["cases"][0]["results"]["cuda"]["compile"] = {"status": "fail", "detail": "x", "stage": "run", "where": ""}
    old.write_text(json.dumps(data))
    later = time.time() + 2
    os.utime(old, (later, later))
    again = build(make_app("html", srcdir=src))
    assert "1 changed" in again.status.getvalue()
    assert warnings(again) == ""
    assert not soup(again).select("tr#kx-color-rgb-to-gray .kx-ch")  # failed before too: no longer a regression
