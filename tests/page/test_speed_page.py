"""The speed mark on the page (probe --speed), from real builds of a copy of tests/page/roots/test-basic whose
snapshot gains speed records: the cell's mark and its title (escaped), the header's method sentence, the text
builder's words; the root's own snapshot (no speed) shows none of it."""

from __future__ import annotations

import json

from page_support import build, copy_root, soup, warnings

from sphinx_kexport.snapshot.result_records import speed_figure, speed_record
from sphinx_kexport.snapshot.upgrade import upgrade_format_1

XSS = '<img src=x onerror="window.__kx_xss=7">'


def _with_speed(tmp_path):
    src = copy_root("basic", tmp_path)
    data_file = src / "_data" / "export_support.json"
    data = upgrade_format_1(json.loads(data_file.read_text()))
    ok = [c for c in data["cases"] if c["results"]["cpu"]["compile"]["status"] == "ok"]
    fast, slow = ok[0], ok[1]
    fast["results"]["cpu"]["compile"]["speed"] = speed_record(2, [
        speed_figure("inputs", "1×3×4×4", 2e-4, 1e-4, 1.8, 2.2),
        speed_figure("batch", "32×3×4×4", 3.1e-3, 1e-3, 2.9, 3.3, batch=32)], fullgraph=True)
    slow["results"]["cpu"]["compile"]["speed"] = speed_record(2, [
        speed_figure("inputs", "2×3", 4.5e-6, 1e-5, 0.4, 0.5)], note=XSS)
    untimed = ok[2]["results"]["cpu"]["compile"]  # the pass did not time it, and the note says why
    untimed["speed"] = speed_record(2, [], note="not timed: the case has no tensor input " + XSS)
    unclear = slow["results"]["cpu"]["export"]
    if unclear["status"] == "ok":
        unclear["speed"] = speed_record(2, [speed_figure("inputs", "2×3", 1e-5, 1e-5, 0.9, 1.1)])
    data_file.write_text(json.dumps(data))
    return src, fast["name"], slow["name"], unclear["status"] == "ok"


def _row(page, name: str):
    return next(tr for tr in page.select("tr[id]") if tr.select_one("code") and name.split("[")[0].split(".")[-1]
                in tr.get_text())


def test_a_working_cell_with_speed_says_what_the_path_buys(make_app, tmp_path):
    src, fast, slow, unclear = _with_speed(tmp_path)
    app = build(make_app("html", srcdir=src, freshenv=True))
    assert warnings(app) == ""
    page = soup(app)
    marks = [m.get_text() for m in page.select("kx-sp")]
    assert "3.1× faster" in marks and "0.45× — slower than eager" in marks
    assert ("no clear difference" in marks) == unclear
    # the figures in full are said once per row, each size's inputs once; the marks carry no tooltip
    assert not any(m.has_attr("title") for m in page.select("kx-sp"))
    slow = next(m for m in page.select("kx-sp") if m.get_text() == "0.45× — slower than eager")
    assert XSS in slow.find_parent("tr").select_one(".kx-spr").get_text()
    assert page.select_one("img[src=x]") is None  # escaped, never markup
    fast = next(m for m in page.select("kx-sp") if m.get_text() == "3.1× faster")
    words = fast.find_parent("tr").select_one(".kx-spr").get_text()
    assert words.startswith("Speed at the case's inputs (1×3×4×4): ") and words.count("(1×3×4×4)") == 1
    assert "torch.compile 100 µs, eager 200 µs, 2.00×" in words
    assert "Speed at batch 32 (32×3×4×4)" in words and "2 threads" in words
    method = page.select_one(".kexport-speed-method").get_text()
    assert "blocked_autorange" in method and "2 threads" in method
    untimed = [m for m in page.select("kx-sp") if m.get_text() == "not timed"]
    assert len(untimed) == 1 and ": not timed: the case has no tensor input " + XSS in \
        untimed[0].find_parent("tr").select_one(".kx-spr").get_text()
    assert untimed[0].find_parent("tr").get("data-e") is None  # no verdict for the speed filters and the sort


def test_the_text_builder_says_the_mark_and_a_page_without_speed_shows_none(make_app, tmp_path):
    src, _, _, _ = _with_speed(tmp_path / "speed")
    text = build(make_app("text", srcdir=src, freshenv=True))
    words = (text.outdir / "index.txt").read_text(encoding="utf-8")
    assert "3.1× faster" in words and "0.45× — slower than eager" in words and "blocked_autorange" in words
    plain = build(make_app("html", srcdir=copy_root("basic", tmp_path / "plain"), freshenv=True))
    page = soup(plain)
    assert page.select("kx-sp") == [] and page.select_one(".kexport-speed-method") is None
