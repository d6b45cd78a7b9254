"""The dynamic-batch result on the page, from real builds of tests/page/roots/test-browser
(its snapshot has every kind: holds at any batch size, only at the traced batch size with a
reason and a frame, a failing dynamic capture, no batch dimension, none at all, and a reason
with markup): the cell marks, legend, reasons, counts, filter, :compare:, badges, downloads,
text and LaTeX; and a page whose snapshot has no dynamic result shows none of it."""

from __future__ import annotations

import csv
import io
import json
import posixpath
from pathlib import Path

import pytest
from page_support import ROOTS, counts, output, soup, warnings

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.snapshot import load_snapshot

SNAPSHOT = ROOTS / "test-browser" / "_data" / "export_support.json"
ONLY_2 = "works only at the traced batch size: the exported model accepts only batch 2"
LOOP = "works only at the traced batch size: the batch size is specialised by a Python loop over it"
XSS = '<img src=x onerror="window.__kx_xss=5">'


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("browser", "html", confoverrides={"kexport_api_badges": True, "kexport_downloads": True})


@pytest.fixture(scope="module")
def page(html):
    return soup(html)


@pytest.fixture(scope="module")
def model():
    return build_model(load_snapshot(SNAPSHOT), package_order=["mylib.color", "mylib.geometry"])


def _cell(page, row_id: str, column: int):
    """The status cell of a row, in display order (ONNX CPU, ONNX CUDA, torch.export CPU, ...)."""
    return page.select_one(f"tr#{row_id}").find_all("td")[1 + column]


def test_build_is_silent(html):
    assert warnings(html) == ""


def test_each_supported_cell_says_whether_it_holds_at_any_batch_size(page):
    gray = page.select_one("tr#kx-mylib-color-rgb-to-gray")
    assert [m.get_text() for m in gray.select("kx-yo")] == ["any batch"] * 6 and gray["data-y"] == "oooooo"
    warp = _cell(page, "kx-mylib-geometry-warp-affine", 0)
    mark = warp.select_one("kx-ys")
    assert warp.get_text(" ", strip=True) == "yes batch 2 only ▼ regressed"  # see the :compare: test
    # the reason and its line are the row's Details' (said once): the mark's tooltip keeps the batch sizes
    assert mark["title"] == "traced at batch 2, run at batch 3"
    details = page.select_one("tr#kx-mylib-geometry-warp-affine").find_all("td")[-1].get_text()
    assert ONLY_2 in details and "mylib/geometry/warp.py:12" in details
    assert page.select_one("tr#kx-mylib-geometry-warp-affine")["data-y"] == "ssoooo"
    # torch.compile's compiled function runs at another batch size after compiling again: said so, not "only"
    rotate_compile_cpu = _cell(page, "kx-mylib-geometry-rotate", 4)
    assert rotate_compile_cpu.select_one("kx-ys").get_text() == "recompiles at a new batch"
    blur = page.select_one("tr#kx-mylib-filters-gaussian-blur2d")
    assert blur["data-y"] == "--ffoo"  # n/a (no batch dimension) has no mark
    assert [m.get_text() for m in blur.select("kx-yf")] == ["dynamic fails"] * 2
    assert "the capture with a dynamic batch fails: guard on the batch size failed" in blur.find_all("td")[-1].get_text()
    # rows without a dynamic result (and failing cells) carry neither marks nor the attribute
    for row_id in ("kx-mylib-color-sepia", "kx-mylib-color-hsv-to-rgb"):
        assert page.select_one(f"tr#{row_id}").get("data-y") is None
        assert not page.select_one(f"tr#{row_id}").select("kx-yo, kx-ys, kx-yf")


def test_the_reason_and_its_frame_are_in_the_details_and_linked_to_the_index(page):
    details = page.select_one("tr#kx-mylib-geometry-rotate").find_all("td")[-1]
    link = details.find("a", string=LOOP)
    assert link is not None and details.select_one("b").get_text() == "torch.export, torch.compile (CPU):"
    assert "mylib/geometry/rotate.py:7" in [c.get_text() for c in details.select("small code")]
    entry = page.select_one(link["href"])
    assert entry.select_one(".kx-rt").get_text() == LOOP
    assert [a["href"] for a in entry.select(".kx-rr a")] == ["#kx-mylib-geometry-rotate"]
    assert [td.get_text() for td in entry.find_all("td")[1:]] == ["", "", "1", "1", "1", "", "3"]
    texts = [e.get_text() for e in page.select(".kx-rs .kx-rt")]
    # worded by its concrete text; the pattern with placeholders stays in the entry's details
    assert ONLY_2 in texts
    assert "Pattern: works only at the traced batch size: the exported model accepts only batch ‹n›" in \
        page.select_one(".kx-rs").get_text()
    assert "the capture with a dynamic batch fails: guard on the batch size failed" in texts
    assert "Supported cells that work only at the traced batch size" in page.select_one(
        ".kexport-reasons-intro").get_text()


def test_untrusted_dynamic_strings_stay_text(html, page):
    raw = output(html, "index.html")
    assert XSS not in raw and "<b>mylib/filters/box.py:3</b>" not in raw
    box = page.select_one("tr#kx-mylib-filters-box-blur")
    assert not box.select("img, b:not(td > b)")
    assert XSS in box.find_all("td")[-1].get_text()
    assert "<b>mylib/filters/box.py:3</b>" in [c.get_text() for c in box.select("small code")]


def test_legend_filter_cards_and_summary(page, model):
    legend = [tr.get_text(" ", strip=True) for tr in page.select("table.kexport-legend tbody tr")]
    assert [line.split(" ", 2)[:2] for line in legend[-4:]] == [
        ["any", "batch"], ["batch", "N"], ["dynamic", "fails"], ["(no", "mark)"]]
    options = [o["value"] for o in page.select("select[data-kx=filter] option")]
    assert options.index("static") == options.index("pass") + 1
    cards = counts(page.select_one(".kexport-cards"))
    for key, tally in model.counts.columns.items():
        assert cards[f"dyn-{key}"] == tally.batch_text
    assert cards["dyn-onnx-cpu"] == "2 / 4" and cards["static"] == "3" == str(model.counts.static)
    assert cards["dyn"] == model.counts.batch.batch_text == "15 / 24"
    summary = page.select_one("table.kexport-summary")
    assert "Any batch" in [th.get_text() for th in summary.select("thead th")]
    filters = summary.select_one("tr.kexport-pkg--mylib-filters")
    assert counts(filters)["dyn"] == next(g for g in model.groups if g.package == "mylib.filters").counts.batch.batch_text


def test_compare_marks_a_cell_that_no_longer_holds_at_any_batch_size(page):
    row = page.select_one("tr#kx-mylib-geometry-warp-affine")
    assert row["data-c"] == "r-----"
    marker = _cell(page, "kx-mylib-geometry-warp-affine", 0).select_one("small.kx-ch-regressed")
    assert marker.get_text() == "▼ regressed"
    assert marker["title"].startswith("was yes, held at any batch size; now yes, only at the traced batch size")
    changed = page.select_one(".kexport-changes").get_text()
    assert "3 cells regressed (supported before, failing now, or holding at any batch size before and not now)" \
        in changed


def test_api_badges_say_whether_the_batch_is_fixed(html):
    api = soup(html, "api.html")
    strips = {dl.find("dt")["id"]: [m.get_text() for m in dl.select(".kexport-badge-mark")]
              for dl in api.select("dl.py") if dl.select(".kexport-badge-mark")}
    assert strips["mylib.color.rgb_to_gray"] == ["CPU yes, any batch", "CUDA yes, any batch"] * 3
    assert strips["mylib.geometry.warp_affine"][:2] == ["CPU yes, batch-specific", "CUDA yes, batch-specific"]
    assert strips["mylib.geometry.warp_affine"][2:] == ["CPU yes, any batch", "CUDA yes, any batch"] * 2


def test_downloads_keep_the_dynamic_results(html, page):
    json_href, csv_href = [a["href"] for a in page.select("p.kexport-downloads a.kx-dl")]
    data = json.loads(Path(html.outdir, posixpath.normpath(json_href)).read_text(encoding="utf-8"))
    warp = next(c for c in data["cases"] if c["operator"] == "warp_affine")
    assert warp["results"]["cpu"]["onnx"]["dynamic"]["status"] == "static"
    rows = list(csv.DictReader(io.StringIO(Path(html.outdir, posixpath.normpath(csv_href)).read_text("utf-8"))))
    warp_rows = [r for r in rows if r["operator"] == "warp_affine" and r["device"] == "cpu"]
    assert [(r["path"], r["dynamic"]) for r in warp_rows] == [("onnx", "static"), ("export", "ok"),
                                                               ("compile", "ok")]
    assert warp_rows[0]["dynamic_where"] == "mylib/geometry/warp.py:12" and warp_rows[0]["traced_batch"] == "2"


def test_text_builder_writes_the_marks_and_reasons(build_once):
    app = build_once("browser", "text")
    assert warnings(app) == ""
    text = output(app, "index.txt")
    line = next(li for li in text.splitlines() if li.startswith("warp_affine "))
    assert line.split()[:6] == ["warp_affine", "yes", "(batch", "2", "only)", "[regressed]"]
    assert "dynamic batch" not in line and "any batch" in text and "dynamic fails" in text
    assert LOOP in " ".join(text.split())
    assert XSS in " ".join(text.split())  # text output is text


def test_latex_builder_writes_the_marks_escaped(build_once):
    app = build_once("browser", "latex")
    assert warnings(app) == ""
    tex = output(app, "mylib.tex")
    assert r"yes {\scriptsize (batch 2 only)} \emph{{[}regressed{]}}" in tex
    assert r"yes {\scriptsize (any batch)}" in tex
    assert "window.\\_\\_kx\\_xss=5" in tex and XSS not in tex


def test_a_snapshot_without_dynamic_results_shows_none_of_it(build_once):
    page = soup(build_once("basic", "html"))
    assert not page.select("kx-yo, kx-ys, kx-yf, tr[data-y], .kx-batch, .kexport-card-batch")
    assert "Any batch" not in page.get_text() and not page.select("option[value=static]")
