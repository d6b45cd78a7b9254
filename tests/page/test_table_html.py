"""The server-rendered HTML the browser script relies on, checked without a browser.

A real sphinx-build of tests/page/roots/test-browser, parsed: every row is there
with its id, its status codes and its cells; untrusted strings are escaped;
the assets load only where the directive is used.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.page.model.payloads import column_payload, display_columns
from sphinx_kexport.page.writers.html import column_headers, css_string
from sphinx_kexport.snapshot import load_snapshot
from sphinx_kexport.snapshot.vocabulary import status

ROOT = Path(__file__).parent / "roots" / "test-browser"


@pytest.fixture(scope="module")
def built(build_once):
    app = build_once("browser", "html")
    assert app.warning.getvalue() == ""
    return Path(app.outdir)


@pytest.fixture(scope="module")
def page(built):
    return BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "lxml")


@pytest.fixture(scope="module")
def model():
    return build_model(load_snapshot(ROOT / "_data" / "export_support.json"),
                       package_order=["mylib.color", "mylib.geometry"])


def test_every_row_is_rendered_with_its_id_and_status_codes(page, model):
    container = page.select_one("div.kexport")
    keys = container["data-cols"].split()
    assert keys == [c["key"] for c in display_columns(column_payload(model))]
    rows = {tr["id"]: tr for tr in container.select("table.kx-t tbody tr")}
    assert list(rows) == [row.id for row in model.rows]
    for row in model.rows:
        tr = rows[row.id]
        expected = "".join(status(row.cell(*reversed(key.split("-"))).result.status).code for key in keys)
        assert tr.get("data-s", "o" * len(keys)) == expected, row.id
        # an ok cell is the plain word; every other status is a <kx-CODE> pill
        firsts = [td.contents[0] for td in tr.find_all("td")[1:-1]]
        pills = [first.name if isinstance(first, Tag) else first.strip() for first in firsts]
        assert pills == ["yes" if code == "o" else f"kx-{code}" for code in expected]
        assert ("kx-dis" in tr.get("class", [])) == row.disagree


def test_operator_link_variant_note_and_merged_details(page):
    linked = page.find(id="kx-mylib-color-rgb-to-gray")
    link = linked.td.a
    assert link["href"] == "api.html#mylib.color.rgb_to_gray" and "reference" in link["class"]
    assert link.code.get_text() == "rgb_to_gray"

    plain = page.find(id="kx-mylib-color-rgb-to-lab-batch")
    assert plain.td.a is None and plain.td.code.get_text() == "rgb_to_lab"
    assert plain.select_one("kx-v").get_text() == "batch"
    assert plain.select_one(".kx-note").get_text() == "a batch of 4 images"

    details = page.find(id="kx-mylib-geometry-warp-perspective").find_all("td")[-1]
    assert details.get_text(" ", strip=True).startswith(
        "ONNX, torch.export: no ONNX lowering for torch.linalg.svd")
    assert "stage: translate (ONNX); capture (torch.export)" in details.get_text()
    assert details.select_one("small code").get_text() == "mylib/geometry/warp.py:88"


def test_disagreeing_rows_are_marked_and_their_cells_outlined(page):
    row = page.find(id="kx-mylib-color-lab-to-rgb")
    marker = row.select_one(".kx-dm")
    assert marker.get_text() == "CPU ≠ CUDA" and marker["title"]
    outlined = [td.get_text() for td in row.select("td.kx-d")]
    assert outlined == ["yes", "no"]  # ONNX on CPU and on CUDA, side by side


def test_graph_break_counts_show_in_the_compile_cells(page):
    cells = [td.get_text() for td in page.find(id="kx-mylib-filters-canny").find_all("td")[1:-1]]
    assert cells[-2:] == ["yes, 3 breaks", "yes"]


def test_untrusted_strings_are_text_not_markup(page):
    row = page.find(id="kx-mylib-color-rgb-to-yuv")
    assert row.find("img") is None and row.find("script") is None
    assert row.select_one(".kx-note").get_text() == '<img src=x onerror="window.__kx_xss=1"> & "quotes"'
    assert "<script>window.__kx_xss=2</script> unsupported" in row.get_text()


def test_controls_are_hidden_until_the_script_runs_and_labelled(page):
    controls = page.select_one(".kexport-controls")
    assert controls.has_attr("hidden")
    search = controls.select_one("label input[type=search]")
    assert search.find_parent("label").select_one(".kx-sr").get_text()
    assert [o["value"] for o in controls.select("select[data-kx=device] option")] == ["", "cpu", "cuda"]
    assert "disagree" in [o["value"] for o in controls.select("select[data-kx=filter] option")]
    assert controls.select_one("[aria-live=polite]").get_text() == "29 configurations"


def test_stacked_rows_take_their_labels_from_the_headers_escaped(page):
    """On a narrow screen each cell shows its column's header (kexport.css): one CSS custom
    property per column on the page's container, not an attribute per cell."""
    assert page.select_one("div.kexport")["style"] == (
        '--kx-l1:"ONNX · CPU";--kx-l2:"ONNX · CUDA";--kx-l3:"torch.export · CPU";--kx-l4:"torch.export · CUDA";'
        '--kx-l5:"torch.compile · CPU";--kx-l6:"torch.compile · CUDA";--kx-ld:"Details"')
    assert page.select_one("table.kx-t thead tr").select("th")[-1].get_text() == "Details"
    one_device = [{"path_label": p, "device_label": "CPU", "device": "cpu"} for p in ("ONNX", "torch.export")]
    assert column_headers(one_device) == ["ONNX", "torch.export"]
    # an untrusted label cannot end the string, the declaration or the attribute
    hostile = css_string('x"; } body { color: red } \\ </div><script>')
    assert hostile.startswith('"x\\22 ') and hostile.count('"') == 2 and not set(hostile) & set(";{}<>'")


def test_no_inline_styles_and_no_hidden_rows_in_the_tables(page):
    tables = page.select("div.kexport table.kx-t")
    assert tables
    for table in tables:
        assert table.find(style=True) is None
        assert table.find(hidden=True) is None


def test_script_and_stylesheet_only_on_pages_with_the_directive(built):
    index = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "lxml")
    script = index.find("script", src=lambda s: s and "kexport.js" in s)
    assert script is not None and script.has_attr("defer")
    assert index.find("link", href=lambda h: h and "kexport.css" in h) is not None
    api = (built / "api.html").read_text(encoding="utf-8")
    assert "kexport.js" not in api and "kexport.css" not in api
    assert (built / "_static" / "kexport.js").is_file() and (built / "_static" / "kexport.css").is_file()


def test_cells_that_changed_since_the_compared_snapshot_are_marked(page):
    row = page.find(id="kx-mylib-geometry-warp-perspective")
    assert row["data-c"] == "rr----"  # ONNX on CPU and CUDA, in display order
    markers = row.select("small.kx-ch")
    assert [m.get_text() for m in markers] == ["▼ regressed", "▼ regressed"]
    assert markers[0]["title"] == "was yes, now no (compared with 2025-12-01T00:00:00Z)"
    fixed = page.find(id="kx-mylib-filters-sobel")
    assert fixed["data-c"] == "----f-" and fixed.select_one("small.kx-ch-fixed").get_text() == "▲ fixed"
    assert page.find(id="kx-mylib-filters-canny")["data-c"] == "----c-"  # changed, but no marker
    assert page.find(id="kx-mylib-filters-canny").select("small.kx-ch") == []
    assert not page.find(id="kx-mylib-color-rgb-to-gray").has_attr("data-c")
    options = [o.get_text() for o in page.select("select[data-kx=filter] option")][-3:]
    assert options == ["regressed since 2025-12-01T00:00:00Z", "fixed since 2025-12-01T00:00:00Z",
                       "any change since 2025-12-01T00:00:00Z"]


def test_failing_rows_with_a_call_offer_it_to_reproduce(page, model):
    with_call = {row.id: row.case.call for row in model.rows if row.case.call}
    boxes = {box.find_parent("tr")["id"]: box for box in page.select("details.kx-repro")}
    assert set(boxes) == set(with_call)
    for row_id, box in boxes.items():
        assert box.summary.get_text() == "Reproduce"
        assert box.pre.get_text() == with_call[row_id]  # readable without JavaScript
    assert boxes["kx-mylib-color-rgb-to-yuv"].find("img") is None
    assert page.select_one(".kexport-controls .kx-reason").has_attr("hidden")
