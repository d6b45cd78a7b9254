"""The reason index ("Failure reasons"), built by real Sphinx builds of tests/page/roots/test-features.

The scenario (two devices): "no ONNX lowering for torch.linalg.svd / solve /
aten::atan2" are one entry of six cells; one reason carries markup, one a
spreadsheet formula.
"""

from __future__ import annotations

import pytest
from page_support import build, copy_root, output, soup, warnings

from sphinx_kexport.page.model.reason_groups import normalise, reason_id
from sphinx_kexport.page.nodes import kexport_reasons

LOWERING = "no ONNX lowering for ‹name›"


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("features", "html")


def _entries(page):
    return page.select("table.kx-rs > tbody > tr")


def test_build_is_silent(html):
    assert warnings(html) == ""
    assert html.statuscode == 0


def test_entries_most_frequent_first_with_counts_per_path_and_device(html):
    page = soup(html)
    title = page.select_one("#export-support-reasons")
    assert title is not None and title.get_text() == "Failure reasons"
    header = [th.get_text() for th in page.select("table.kx-rs thead th")]
    assert header == ["Reason", "ONNX (CPU)", "ONNX (CUDA)", "torch.export (CPU)", "torch.export (CUDA)",
                      "torch.compile (CPU)", "torch.compile (CUDA)", "Total"]
    entries = _entries(page)
    totals = [int(tr.select("td")[-1].get_text()) for tr in entries]
    assert totals == sorted(totals, reverse=True)
    top = entries[0]
    # worded by one concrete instance (the most frequent text, ties by text) and the operator it comes from;
    # the placeholders stay in the details as the entry's pattern
    assert top.select_one(".kx-rt").get_text() == "no ONNX lowering for aten::atan2"
    assert top.select_one(".kx-ri").get_text() == "e.g. hsv_to_rgb"
    assert f"Pattern: {LOWERING}." in top.select_one("p.kx-rx").get_text()
    assert "‹" not in top.select_one(".kx-rt").get_text()
    assert top["id"] == reason_id(LOWERING)
    assert [td.get_text() for td in top.select("td")[1:]] == ["3", "3", "", "", "", "", "6"]


def test_each_entry_lists_links_to_the_rows_it_affects(html):
    page = soup(html)
    top = _entries(page)[0]
    details = top.select_one("details")
    assert details.select_one("summary").get_text() == "3 configurations"
    hrefs = [a["href"] for a in details.select("p.kx-rr a")]
    assert hrefs == ["#kx-color-hsv-to-rgb", "#kx-geometry-solve", "#kx-geometry-warp-affine"]
    for href in hrefs:  # every link lands on a row of the page
        assert page.select_one(f"tr{href}") is not None
    examples = [q.get_text() for q in details.select("p.kx-rx q")]
    assert sorted(examples) == ["no ONNX lowering for aten::atan2", "no ONNX lowering for torch.linalg.solve",
                                "no ONNX lowering for torch.linalg.svd"]
    # the filter button is there for the script, hidden without it
    button = top.select_one("button.kx-rf")
    assert button["data-kx-reason"] == top["id"] and button.has_attr("hidden")


def test_each_row_reason_links_back_to_its_entry(html):
    page = soup(html)
    row = page.select_one("tr#kx-geometry-solve")
    links = {a.get_text(): a["href"] for a in row.select("a[href^='#kx-reason-']")}
    assert links["no ONNX lowering for torch.linalg.solve"] == "#" + reason_id(LOWERING)
    for href in links.values():
        assert page.select_one(f"table.kx-rs tr{href}") is not None
    # the concrete text stays on the row
    assert "no ONNX lowering for torch.linalg.solve" in row.get_text()


def test_row_payloads_carry_their_reason_ids(html):
    doctree = html.env.get_doctree("index")
    rows = {r["name"]: r for t in doctree.findall(lambda n: n.tagname == "kexport_table") for r in t["rows"]}
    assert rows["geometry.warp_affine"]["reasons"] == {
        "no ONNX lowering for torch.linalg.svd": reason_id(normalise("no ONNX lowering for torch.linalg.svd"))}
    assert "reasons" not in rows["filters.blur<b>"]  # nothing fails


def test_snapshot_markup_stays_text(html):
    page = soup(html)
    table = page.select_one("table.kx-rs")
    assert not table.select("img, script")
    assert any("<img src=x onerror=" in tr.select_one(".kx-rt").get_text() for tr in _entries(page))
    assert any(q.get_text().startswith("<img src=x") for q in table.select("q"))


def test_text_builder_gets_a_plain_table(build_once):
    app = build_once("features", "text")
    assert warnings(app) == ""
    text = output(app, "index.txt")
    block = text[text.index("Failure reasons"):]
    assert "| Reason" in block and "| ONNX CPU | ONNX CUDA | export CPU |" in block and "Total" in block
    assert "| no ONNX lowering for aten::atan2 (e.g." in block
    assert "Show only these rows" not in text


@pytest.mark.parametrize("builder", ["latex", "man", "texinfo"])
def test_other_builders_are_silent_and_show_the_table(build_once, builder):
    app = build_once("features", builder)
    assert warnings(app) == ""
    name = {"latex": "featurelib.tex", "man": "featurelib.1", "texinfo": "featurelib.texi"}[builder]
    text = output(app, name)
    assert "Failure reasons" in text
    assert "no ONNX lowering for" in text


def test_reasons_off_leaves_the_index_out(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    index = src / "index.rst"
    index.write_text(index.read_text().replace("   :compare: _data/old.json\n",
                                               "   :compare: _data/old.json\n   :reasons: off\n"))
    app = build(make_app("html", srcdir=src, freshenv=True))
    assert warnings(app) == ""
    page = soup(app)
    assert page.select_one("table.kx-rs") is None and page.select_one("#export-support-reasons") is None
    assert not page.select("table.kx-t a[href^='#kx-reason-']")
    assert not list(app.env.get_doctree("index").findall(kexport_reasons))


def test_a_bad_reasons_value_is_one_error(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    index = src / "index.rst"
    index.write_text(index.read_text().replace("   :compare: _data/old.json\n", "   :reasons: maybe\n"))
    app = build(make_app("html", srcdir=src, freshenv=True))
    lines = [line for line in warnings(app).splitlines() if line.strip()]
    assert len(lines) == 1
    assert "_data/new.json: option :reasons:: expected on or off, found 'maybe'." in lines[0]
    assert app.statuscode == 1


def test_two_pages_in_one_document_keep_reason_ids_unique(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    index = src / "index.rst"
    index.write_text(index.read_text() + "\nAgain\n-----\n\n.. export-support:: _data/new.json\n")
    app = build(make_app("html", srcdir=src, freshenv=True))
    assert warnings(app) == ""
    page = soup(app)
    ids = [tr["id"] for tr in page.select("table.kx-rs > tbody > tr")]
    assert len(ids) == len(set(ids))
    second = page.select("table.kx-rs")[1]
    top = second.select_one("tbody > tr")
    assert top["id"] == reason_id(LOWERING) + "-2"
    assert all(a["href"].endswith("-2") for a in top.select("p.kx-rr a"))
    assert page.select_one("tr#kx-geometry-solve-2 a[href^='#kx-reason-']")["href"] == "#" + reason_id(LOWERING) + "-2"
