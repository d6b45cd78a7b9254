"""The page, built by a real Sphinx HTML build of tests/page/roots/test-basic.

The snapshot (format 1, CPU only): mylib.color (2 rows), mylib.geometry (4
rows in three sections: "", transform, camera), mylib.io (one all-n/a row,
left out) and mylib.utils (one row, compile only). conf.py puts
mylib.geometry first and names two of its sections.
"""

from __future__ import annotations

import pytest
from docutils import nodes
from page_support import check_regression, counts, skeleton, soup, tables, warnings

from sphinx_kexport.page.nodes import kexport_controls, kexport_page


@pytest.fixture(scope="module")
def built(build_once):
    """One build shared by the read-only checks of this module."""
    return build_once("basic", "html")


def test_build_is_silent(built):
    assert warnings(built) == ""
    assert built.statuscode == 0


def test_cards_show_every_count_with_its_class(built):
    cards = soup(built).select_one("div.kexport .kexport-cards")
    assert cards is not None
    assert counts(cards) == {
        "onnx-cpu": "3 / 6", "export-cpu": "5 / 6", "compile-cpu": "6 / 7",
        "pass-all": "3", "rows": "7", "operators": "6", "onnx-operators": "3",
    }
    titles = [t.get_text(strip=True) for t in cards.select(".sd-card-title")]
    assert titles == ["ONNX export", "torch.export", "torch.compile", "All paths"]
    assert "opset 18" in cards.get_text()


def test_entries_without_a_row_are_listed_under_not_probed(built):
    page = soup(built).select_one("div.kexport")
    assert "1 registered entry is not in the tables (1 skipped)" in page.select_one("p.kexport-note").get_text()
    doctree = built.env.get_doctree("index")
    names = [row["name"] for table in tables(doctree) for row in table["rows"]]
    assert "io.load_image" not in names
    assert len(names) == 7
    listed = page.select("table.kexport-not-probed tbody tr")
    assert [[td.get_text(" ", strip=True) for td in tr.select("td")] for tr in listed] == [
        ["load_image (mylib.io)", "skipped by the case module", "file I/O"]]


def test_an_eager_failure_is_listed_first_and_said_loudly(make_app, tmp_path):
    """A case that does not run eagerly (a broken install, say) must not vanish from the page."""
    import json

    from page_support import build, copy_root

    src = copy_root("basic", tmp_path)
    data_file = src / "_data" / "export_support.json"
    data = json.loads(data_file.read_text())
    broken = {"status": "n/a", "detail": "does not run eagerly with the probed inputs: No module named "
              "'scipy' <script>", "stage": "eager", "where": "mylib/filters.py:12"}
    data["cases"].append({"name": "filters.median", "package": "mylib.filters", "section": "", "operator": "median",
                          "variant": "", "ref": "", "note": "", "results": {"cpu": {
                              "onnx": broken, "export": broken, "compile": dict(broken, graph_breaks=0)}}})
    data_file.write_text(json.dumps(data))
    app = build(make_app("html", srcdir=src))
    page = soup(app).select_one("div.kexport")
    assert "2 registered entries are not in the tables (1 fails eagerly, 1 skipped)" in page.get_text(" ")
    assert "1 fails eagerly" in page.select_one("p.kexport-not-probed-intro").get_text()
    first = page.select_one("table.kexport-not-probed tbody tr")
    cells = [td.get_text(" ", strip=True) for td in first.select("td")]
    assert cells[0] == "median (mylib.filters)"
    assert cells[1].startswith("fails eagerly")
    assert "No module named 'scipy' <script>" in cells[2] and "mylib/filters.py:12" in cells[2]
    assert first.find("script") is None  # snapshot text is text


def test_how_it_was_measured(built):
    page = soup(built).select_one("div.kexport")
    text = page.select_one("p.kexport-measured").get_text()
    assert "How this was measured." in text
    assert "2026-11-20T10:30:00Z" in text and "mylib 1.2.3" in text and "abc1234" in text
    environment = page.select_one("ul.kexport-environments").get_text()
    for fragment in ("CPU", "Intel Xeon Platinum", "torch 2.13.0+cpu", "onnxruntime 1.32.0",
                     "CPUExecutionProvider", "opset 18"):
        assert fragment in environment
    assert page.select_one(".kexport-incomplete") is None  # complete snapshot: no warning


def test_legend_lists_the_statuses_used_as_pills(built):
    legend = soup(built).select_one("table.kexport-legend")
    pills = [(span.get_text(), span["class"]) for span in legend.select("span.kx-status")]
    assert [text for text, _ in pills] == ["yes", "yes, graph breaks", "yes (random)", "mismatch", "no", "n/a"]
    assert pills[1][1] == ["kx-status", "kx-status--ok-breaks"]


def test_summary_rows_link_to_package_sections_in_configured_order(built):
    page = soup(built)
    rows = page.select("table.kexport-summary tr.kexport-summary-row")
    assert [r.select_one("a")["href"] for r in rows] == [
        "#export-support-mylib-geometry", "#export-support-mylib-color", "#export-support-mylib-utils"]
    assert "kexport-pkg--mylib-geometry" in rows[0]["class"]
    assert counts(rows[0]) == {"rows": "4", "onnx-cpu": "2 / 4", "export-cpu": "3 / 4",
                               "compile-cpu": "4 / 4", "pass-all": "2"}
    assert counts(rows[2])["onnx-cpu"] == "—"  # nothing probed: a dash, not 0 / 0
    for row in rows:
        assert page.select_one(row.select_one("a")["href"]) is not None


def test_sections_titles_and_ids(built):
    page = soup(built).select_one("div.kexport")
    sections = [(s["id"], s.find(["h2", "h3"]).get_text().rstrip("¶")) for s in page.select("section")]
    assert sections == [
        ("export-support-mylib-geometry", "mylib.geometry"),
        ("export-support-mylib-geometry-operators", "Core"),  # from kexport_section_titles
        ("export-support-mylib-geometry-transform", "Transforms"),
        ("export-support-mylib-geometry-camera", "Camera"),  # from the key
        ("export-support-mylib-color", "mylib.color"),  # one section: no sub-heading
        ("export-support-mylib-utils", "mylib.utils"),
    ]
    lead = page.select_one("#export-support-mylib-color p.kexport-package-lead")
    assert "kexport-pkg--mylib-color" in lead["class"]
    assert counts(lead) == {"rows": "2", "onnx-cpu": "1 / 2", "export-cpu": "2 / 2", "compile-cpu": "2 / 2"}


def test_table_nodes_carry_sorted_rows_and_columns(built):
    doctree = built.env.get_doctree("index")
    found = {table["table_id"]: table for table in tables(doctree)}
    assert list(found) == ["kexport-table-mylib-geometry", "kexport-table-mylib-geometry-transform",
                           "kexport-table-mylib-geometry-camera", "kexport-table-mylib-color",
                           "kexport-table-mylib-utils"]
    transform = found["kexport-table-mylib-geometry-transform"]
    assert transform["title"] == "Transforms" and transform["package"] == "mylib.geometry"
    assert transform["section"] == "transform"
    assert [(r["operator"], r["variant"]) for r in transform["rows"]] == [("warp_affine", ""),
                                                                          ("warp_affine", "fill")]
    assert [c["key"] for c in transform["columns"]] == ["onnx-cpu", "export-cpu", "compile-cpu"]
    color = found["kexport-table-mylib-color"]
    assert [r["operator"] for r in color["rows"]] == ["hsv_to_rgb", "rgb_to_gray"]
    assert color["rows"][0]["cells"][2]["text"] == "yes, 2 breaks"


def test_controls_sit_before_the_first_package_section(built):
    doctree = built.env.get_doctree("index")
    page = next(doctree.findall(kexport_page))
    kinds = [type(child).__name__ for child in page.children]
    first_section = kinds.index("section")
    assert kinds[first_section - 1] == "kexport_controls"
    assert all(kind == "section" for kind in kinds[first_section:])
    controls = next(page.findall(kexport_controls))
    assert controls["total"] == 7 and controls["devices"] == ["cpu"]


def test_package_sections_are_in_the_table_of_contents(built):
    toc = built.env.tocs["index"]
    anchors = [ref["anchorname"] for ref in toc.findall(nodes.reference)]
    assert anchors == ["", "#export-support-mylib-geometry", "#export-support-mylib-geometry-operators",
                       "#export-support-mylib-geometry-transform", "#export-support-mylib-geometry-camera",
                       "#export-support-mylib-color", "#export-support-mylib-utils", "#afterword"]


def test_doctree_regression_as_read(built):
    page = next(built.env.get_doctree("index").findall(kexport_page))
    check_regression(skeleton(page), "basic-read.xml")


def test_doctree_regression_resolved(built):
    doctree = built.env.get_and_resolve_doctree("index", built.builder, tags=built.tags)
    page = next(doctree.findall(kexport_page))
    check_regression(skeleton(page), "basic-resolved.xml")


def test_the_page_carries_its_script_and_stylesheet(built):
    page = soup(built)
    scripts = [s.get("src", "") for s in page.select("script")]
    styles = [s.get("href", "") for s in page.select("link[rel=stylesheet]")]
    assert any("kexport" in src for src in scripts) and any("kexport" in href for href in styles)
    # ... and only that page: the API page has no table.
    api = soup(built, "api.html")
    assert not any("kexport" in s.get("src", "") for s in api.select("script"))


def test_a_timeout_is_a_status_of_its_own_left_out_of_the_counts(make_app, tmp_path):
    """A cell that ran past the time limit is not known: its own pill, legend row and filter, and the cards
    count it neither as supported nor as probed (the page built from the probe's format 2)."""
    from page_support import basic_root_with_a_timeout, build

    src, _ = basic_root_with_a_timeout(tmp_path)
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert warnings(app) == ""
    page = soup(app).select_one("div.kexport")
    # one fewer compile cell probed and supported than the unedited page's 6 / 7; not counted as a pass
    assert counts(page.select_one(".kexport-cards"))["compile-cpu"] == "5 / 6"
    legend = [span.get_text() for span in page.select("table.kexport-legend span.kx-status")]
    assert "timed out" in legend and legend.index("timed out") == legend.index("no") + 1
    row = page.find("tr", attrs={"data-s": lambda s: s and "t" in s})
    assert row is not None and row.select_one("kx-t").get_text() == "timed out"
    assert "ran past the time limit of 300 s during torch.compile" in row.get_text()
    assert page.select_one('select[data-kx="filter"] option[value="timeout"]').get_text() == "ran past the time limit"


def test_objects_whose_docstring_examples_yielded_no_case_are_listed_under_not_probed(make_app, tmp_path):
    """The snapshot's objects_without_cases (the probe's discovery: the example raised, tried to download,
    cannot be parsed, ...) are listed with why, after the registered entries; their text is data."""
    import json

    from page_support import build, copy_root

    from sphinx_kexport.snapshot.upgrade import upgrade_format_1

    src = copy_root("basic", tmp_path)
    data_file = src / "_data" / "export_support.json"
    data = upgrade_format_1(json.loads(data_file.read_text()))
    data["objects_without_cases"] = [
        {"ref": "mylib.metrics.BRISQUE", "package": "mylib.metrics", "kind": "unparsable",
         "detail": "line 9 of the docstring for mylib.metrics.BRISQUE has inconsistent leading whitespace"},
        {"ref": "mylib.io.fetch<b>", "package": "mylib.io", "kind": "download",
         "detail": "DownloadBlocked: urlopen 'https://x.invalid/w.pt' <script>alert(1)</script>"},
        {"ref": "mylib.filters.strict", "package": "mylib.filters", "kind": "raised",
         "detail": "mylib.filters.strict raised ValueError: needs 2-D (the example shows it failing)"},
    ]
    data_file.write_text(json.dumps(data))
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert warnings(app) == ""
    page = soup(app).select_one("div.kexport")
    note = page.select_one("p.kexport-note").get_text()
    assert ("1 registered entry is not in the tables (1 skipped); 3 objects’ docstring examples yielded no case: "
            "see “Not probed” below.") in note
    intro = page.select_one("p.kexport-without-cases-intro").get_text()
    assert intro.startswith("3 objects of the library have docstring examples that yielded no case (1 the example "
                            "raised, 1 it tried to download, 1 doctest cannot parse its docstring)")
    rows = [[td.get_text(" ", strip=True) for td in tr.select("td")]
            for tr in page.select("table.kexport-without-cases tbody tr")]
    assert rows == [  # in the order of the reasons, then of the names
        ["mylib.filters.strict (mylib.filters)", "the example raised",
         "mylib.filters.strict raised ValueError: needs 2-D (the example shows it failing)"],
        ["mylib.io.fetch<b> (mylib.io)", "it tried to download",
         "DownloadBlocked: urlopen 'https://x.invalid/w.pt' <script>alert(1)</script>"],
        ["mylib.metrics.BRISQUE (mylib.metrics)", "doctest cannot parse its docstring",
         "line 9 of the docstring for mylib.metrics.BRISQUE has inconsistent leading whitespace"],
    ]
    table = page.select_one("table.kexport-without-cases")
    assert table.find("script") is None and table.find("b") is None  # snapshot text is text
    # after the registered entries without a row, in the same part
    assert page.select_one("table.kexport-not-probed").find_next("table") is table
