"""One page across torch versions, in real builds of tests/page/roots/test-versions.

``.. export-support:: torch-2.15.0 torch-2.11.0 torch-2.13.0`` (out of order on purpose): the cells say
"since torch 2.13.0", "regressed in torch 2.15.0", "varies by version" and "differs by version" in every
builder; HTML adds the per-version strip, the selector and the "changed between torch versions" filter;
the regression between the two newest versions is listed at the top, as ``probe diff`` finds it; every
version's environment is listed; bad input is one error line. The scenario: fixtures/versions_scenario.py.
"""

from __future__ import annotations

import json
import re

import pytest
from page_support import build, copy_root, output, soup, warnings

from sphinx_kexport.snapshot import read_snapshot
from sphinx_kexport.snapshot.diff import compare

WORDS = {"hsv_to_rgb": "since torch 2.13.0", "warp_affine": "regressed in torch 2.15.0",
         "project_points": "varies by version", "Affine": "differs by version"}


@pytest.fixture(scope="module")
def html(build_once):
    app = build_once("versions", "html")
    assert warnings(app) == ""
    return app


def _row(page, name):
    return page.select_one(f"tr#kx-{name}")


def test_cells_show_the_newest_torch_first_with_words_and_a_strip(html):
    page = soup(html)
    root = page.select_one("div.kexport")
    assert root["data-versions"] == "2.11.0|2.13.0|2.15.0"  # ordered by torch, not by argument
    warp = _row(page, "geometry-warp-affine")
    cell = warp.select("td")[3]
    assert cell.select_one(".kx-cur").get_text() == "no"  # 2.15.0, the newest, first
    assert cell.select_one("small.kx-vm").get_text() == "regressed in torch 2.15.0"
    strip = cell.select_one("details.kx-vs")
    assert strip.select_one("summary").get_text() == "2.11.0 yes · 2.13.0 yes · 2.15.0 no"
    assert [li.get_text() for li in strip.select("li")][-1] == (
        "torch 2.15.0: no — triton: no kernel for uint8 (stage: run) verlib/geometry/warp.py:9")
    assert warp["data-v"] == "ooo" "ooo" "oof"
    assert _row(page, "color-hsv-to-rgb").select_one("small.kx-vm").get_text() == "since torch 2.13.0"
    assert _row(page, "geometry-project-points").select_one("small.kx-vm").get_text() == "varies by version"
    assert _row(page, "geometry-affine-random").select_one("small.kx-vm").get_text() == "differs by version"
    same = _row(page, "color-rgb-to-gray")
    assert not same.has_attr("data-v") and not same.select(".kx-vs, .kx-vm, .kx-cur")  # nothing extra


def test_a_case_some_versions_lack_is_shown_with_the_versions_it_has(html):
    page = soup(html)
    blur, median = _row(page, "filters-blur"), _row(page, "filters-median")
    assert blur.select_one("small.kx-vp").get_text() == "only in torch 2.13.0, 2.15.0"
    assert blur["data-v"] == "xxx" "ooo" "ooo"
    assert median.select_one("small.kx-vp").get_text() == "only in torch 2.11.0, 2.13.0"
    assert median["data-v"] == "foo" "foo" "xxx"
    # the figures are the newest version's: median (not in 2.15.0) is shown but not counted
    cards = page.select_one(".kexport-cards")
    assert cards.select_one(".kexport-count--rows").get_text() == "6"
    assert cards.select_one(".kexport-count--onnx-cpu").get_text() == "6 / 6"
    newest = page.select_one(".kx-rw[data-kv='2.15.0']")
    reasons = [e.get_text() for e in newest.select("table.kx-rs .kx-rt")]
    assert reasons == ["triton: no kernel for uint8"]  # median's ONNX failure is 2.13.0's, not 2.15.0's


def test_each_version_has_its_reason_index_the_older_ones_hidden(html):
    page = soup(html)
    indexes = {d["data-kv"]: d for d in page.select(".kx-rw[data-kv]")}
    assert [(v, d.has_attr("hidden")) for v, d in indexes.items()] == [
        ("2.15.0", False), ("2.11.0", True), ("2.13.0", True)]
    entries = {v: [(tr["id"], tr.select_one(".kx-rt").get_text(), [a["href"] for a in tr.select(".kx-rr a")])
                   for tr in d.select("tbody tr")] for v, d in indexes.items()}
    assert entries["2.13.0"] == [
        ("kx-reason-6c79390f82-v2-13-0", "data-dependent output shape", ["#kx-geometry-project-points"]),
        ("kx-reason-8147e7597f-v2-13-0", "no ONNX lowering for aten::median", ["#kx-filters-median"])]
    assert entries["2.11.0"][0][2] == ["#kx-color-hsv-to-rgb", "#kx-filters-median"]  # the page's row ids
    assert indexes["2.13.0"].select_one("p.kx-rv").get_text() == "With torch 2.13.0:"


def test_the_downloads_are_the_newest_snapshots(html):
    import csv
    import io

    link = soup(html).select_one("p.kexport-downloads")
    assert "(6 cases)" in link.get_text()  # 2.15.0's file: median is not in it
    csv_file = next(a["href"] for a in link.select("a.kx-dl") if a["href"].endswith(".csv"))
    names = {row["name"] for row in csv.DictReader(io.StringIO(output(html, csv_file)))}
    assert "filters.median" not in names and "filters.blur" in names


def test_selector_and_filter_are_in_the_controls(html):
    controls = soup(html).select_one(".kexport-controls")
    options = [(o["value"], o.get_text()) for o in controls.select("select[data-kx=version] option")]
    assert options == [("2.15.0", "2.15.0 (newest)"), ("2.13.0", "2.13.0"), ("2.11.0", "2.11.0")]
    assert controls.select_one("select[data-kx=filter] option[value=versions]").get_text() == (
        "changed between torch versions")


def test_regressions_between_the_two_newest_are_listed_at_the_top_as_probe_diff_finds_them(html):
    page = soup(html)
    part = page.select_one(".kexport-version-regressions")
    assert part.find_previous(class_="kexport-cards") is not None  # right under the cards
    assert part.select_one("p").get_text() == ("Regressions in torch 2.15.0. 1 cell that worked with torch 2.13.0 "
                                               "fails with torch 2.15.0:")
    assert [li.get_text() for li in part.select("li")] == [
        "warp_affine — torch.compile: yes → no (triton: no kernel for uint8)"]
    data = html.srcdir / "_data"
    old, _ = read_snapshot(data / "torch-2.13.0.json")
    new, _ = read_snapshot(data / "torch-2.15.0.json")
    assert [(c.case, c.path) for c in compare(old, new) if c.kind == "regressed"] == [("geometry.warp_affine",
                                                                                      "compile")]
    from sphinx_kexport.probe.cli.main import main  # the command line (no torch imported)

    assert main(["diff", str(data / "torch-2.13.0.json"), str(data / "torch-2.15.0.json")]) == 1
    # project_points' torch.export failed with 2.13.0 only: 2.11.0 -> 2.13.0 regressed too, 2.11.0 -> 2.15.0 not
    assert main(["diff", str(data / "torch-2.11.0.json"), str(data / "torch-2.13.0.json")]) == 1
    assert main(["diff", str(data / "torch-2.13.0.json"), str(data / "torch-2.11.0.json")]) == 1


def test_how_this_was_measured_lists_every_versions_environment(html):
    page = soup(html)
    text = " ".join(page.select_one("div.kexport").get_text().split())
    for torch, day in (("2.15.0+cpu", "12-01"), ("2.13.0+cpu", "09-01"), ("2.11.0+cpu", "06-01")):
        assert f"torch {torch}; onnx 1.23.2" in text and f"probed 2026-{day}T09:00:00Z" in text
    assert "torch 2.13.0: snapshot of 2026-09-01T10:00:00Z, read from _data/torch-2.13.0.json" in text


@pytest.mark.parametrize("builder, name", [("text", "index.txt"), ("man", "verlib.1"), ("texinfo", "verlib.texi"),
                                           ("singlehtml", "index.html"), ("latex", "verlib.tex")])
def test_every_builder_says_since_and_regressed_in_words(build_once, builder, name):
    app = build_once("versions", builder)
    assert warnings(app) == ""
    text = " ".join(output(app, name).replace("\\-", "-").split())
    for words in WORDS.values():
        assert words in text, (builder, words)
    assert "only in torch 2.13.0, 2.15.0" in text
    if builder in ("text", "man", "texinfo", "latex"):
        assert "torch.compile by torch version: 2.11.0 yes; 2.13.0 yes; 2.15.0 no" in text
    if builder == "text":  # the newest's reason index only: no other builder lets the reader choose
        assert "triton: no kernel for uint8" in text and "data-dependent output shape" not in text.split(
            "verlib.color")[0]
        assert re.search(r"warp_affine\s+yes\s+yes\s+no \[regressed\] \(regressed in torch 2\.15\.0\)", text)


def test_one_snapshot_reads_as_before(build_once):
    app = build_once("basic", "html")
    page = soup(app)
    assert not page.select_one("div.kexport").has_attr("data-versions")
    assert not page.select("select[data-kx=version], .kx-vs, .kx-vm, .kexport-version-regressions")


BAD = {
    "same torch twice": ("_data/torch-2.13.0.json _data/copy.json",
                         "_data/copy.json: torch 2.13.0, the same as _data/torch-2.13.0.json: expected one snapshot "
                         "per torch version."),
    "no torch": ("_data/torch-2.11.0.json _data/blank.json",
                 "_data/blank.json: field environments.cpu.torch: expected the torch version"),
    "another library": ("_data/torch-2.11.0.json _data/other.json",
                        "_data/other.json: library 'otherlib', but _data/torch-2.11.0.json surveys 'verlib'"),
    "missing file": ("_data/torch-2.11.0.json _data/nope.json", "_data/nope.json: no such file"),
}


def test_bad_input_is_one_error_line_per_page(tmp_path):
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    src = copy_root("versions", tmp_path)
    data = json.loads((src / "_data" / "torch-2.13.0.json").read_text())
    (src / "_data" / "copy.json").write_text(json.dumps(data))
    blank = json.loads(json.dumps(data))
    blank["environments"]["cpu"]["torch"] = ""
    (src / "_data" / "blank.json").write_text(json.dumps(blank))
    other = json.loads(json.dumps(data))
    other["library"]["name"] = "otherlib"
    (src / "_data" / "other.json").write_text(json.dumps(other))
    (src / "bad.rst").write_text("Bad\n===\n\n" + "".join(f".. export-support:: {args}\n\n" for args, _ in BAD.values()))
    (src / "index.rst").write_text((src / "index.rst").read_text() + "   bad\n")
    app = build(SphinxTestApp("text", srcdir=src, freshenv=True, status=StringIO(), warning=StringIO()))
    lines = [line for line in warnings(app).splitlines() if line.strip()]
    assert len(lines) == len(BAD), lines
    for (_, message), line in zip(BAD.values(), lines):
        assert "ERROR" in line and message in line and "Traceback" not in line, line
    assert "could not be built" in output(app, "bad.txt")
