"""The speed picture, the speed figures' hooks for the browser and the CSV's speed columns, from real builds
of tests/page/roots/test-speed (a snapshot surveyed with --speed, fixtures/speed_scenario.py): one SVG dot per
figure, its words (title, desc, the sentence every builder writes), a package name that is markup shown as
text, the rows' verdict codes and ratios, the text builder's sentence in place of the SVG."""

from __future__ import annotations

import csv
import io
import posixpath
import re
from pathlib import Path

from fixtures.speed_scenario import HOSTILE
from page_support import output, soup, warnings

from sphinx_kexport.snapshot.csv_table import CSV_COLUMNS, SPEED_COLUMNS

SPEEDLIB = ("ONNX: 1 faster, 1 slower, 1 no clear difference; median 1×; torch.export: 1 faster, 1 slower, "
            "1 no clear difference; median 1×; torch.compile: 3 faster, 1 slower, 1 no clear difference; "
            "median 1.8×")
HOSTILE_WORDS = "torch.compile: 1 faster, 0 slower, 0 no clear difference; median 2.5×"


def _dots(svg, code: str = "") -> list[tuple[float, float]]:
    """The dots' centres: each starts its path's segment ("M96.4 43", speed_svg._dots)."""
    return [(float(x), float(y)) for path in svg.select(f"path.kx-spd{code}")
            for x, y in re.findall(r"M([\d.]+) ([\d.]+)", path["d"])]


def test_one_dot_per_figure_and_the_picture_in_words(build_once):
    app = build_once("speed", "html")
    assert warnings(app) == ""
    page = soup(app)
    pictures = page.select("svg.kx-spic")
    assert len(pictures) == 2  # one per package with figures
    speedlib, hostile = pictures
    # 3 ONNX, 3 torch.export, 5 torch.compile figures in speedlib; the hostile package's one
    assert len(_dots(speedlib)) == 11 and len(_dots(hostile)) == 1
    assert [len(_dots(speedlib, code)) for code in "fsu"] == [5, 3, 3]
    assert len(speedlib.select("path.kx-spdf")) == 3  # 5 faster dots, one path per strip that has them
    assert speedlib.select_one("desc").get_text() == SPEEDLIB + "."
    assert speedlib["role"] == "img"
    labelled = speedlib["aria-labelledby"].split()
    assert [page.find(id=i).name for i in labelled] == ["title", "desc"]
    texts = [t.get_text() for t in speedlib.select("text")]
    assert "1× = eager" in texts and "← slower than eager" in texts and "faster than eager →" in texts
    assert {"0.5×", "1×", "2×"} <= set(texts)
    # one axis for both: the same ticks, so the packages compare
    assert [t.get_text() for t in hostile.select("text")][-8:] == texts[-8:]
    assert len(page.select("p.kx-spk")) == 1  # how to read the dots, before the first picture
    words = [p.get_text() for p in page.select("p.kexport-speed-words")]
    assert words == [f"speedlib — {SPEEDLIB}.", f"{HOSTILE} — {HOSTILE_WORDS}."]
    # the package name that is markup: text in the title, the words and the sentence, never an element
    assert hostile.select_one("title").get_text() == f"Speed over eager in {HOSTILE}"
    assert page.select_one("img[src=x]") is None


def test_rows_carry_their_verdicts_and_ratios_for_the_filters_and_the_sort(build_once):
    page = soup(build_once("speed", "html"))
    root = page.select_one("div.kexport")
    assert (root["data-faster-word"], root["data-slower-word"]) == ("faster", "slower")
    rows = {tr["id"]: (tr.get("data-e"), tr.get("data-x")) for tr in page.select("tr[id]")}
    # columns: ONNX, torch.export, torch.compile
    assert rows["kx-fuse"] == ("fuf", "2 1 3.1")  # compile's mark is batch 32's figure
    assert rows["kx-broken"] == ("--f", "- - 5")
    assert rows["kx-plain"] == (None, None)  # no figure: no attributes
    values = [o["value"] for o in page.select("select[data-kx=filter] option")]
    assert {"faster-compile", "slower-compile", "faster-onnx", "slower-export"} <= set(values)
    assert [o["value"] for o in page.select("select[data-kx=sort] option")] == [
        "", "onnx-cpu", "export-cpu", "compile-cpu"]


def test_a_page_without_speed_has_no_speed_controls_attributes_or_picture(build_once):
    page = soup(build_once("basic", "html"))
    assert page.select("svg.kx-spic, p.kexport-speed-words, select[data-kx=sort], tr[data-e]") == []
    assert not page.select_one("div.kexport").has_attr("data-faster-word")
    assert not [o for o in page.select("select[data-kx=filter] option") if "faster" in o["value"]]


def test_the_text_and_latex_builders_write_the_words_instead_of_the_picture(build_once):
    app = build_once("speed", "text")
    assert warnings(app) == ""
    text = " ".join(output(app, "index.txt").split())
    assert f"**speedlib** — {SPEEDLIB}." in text and f"**{HOSTILE}** — {HOSTILE_WORDS}." in text
    assert "<svg" not in text and "<path" not in text
    latex = build_once("speed", "latex")
    assert warnings(latex) == ""
    tex = " ".join(next(Path(latex.outdir).glob("*.tex")).read_text(encoding="utf-8").split())
    assert "torch.compile: 3 faster, 1 slower, 1 no clear difference; median 1.8×" in tex
    assert "onerror" in tex and "<img" not in tex  # LaTeX-escaped: \textless{}img


def test_the_csv_download_has_the_speed_figures(build_once):
    app = build_once("speed", "html")
    href = soup(app).select("p.kexport-downloads a.kx-dl")[1]["href"]
    data = Path(app.outdir, posixpath.normpath(href)).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(data)))
    assert tuple(rows[0]) == CSV_COLUMNS + SPEED_COLUMNS
    fuse = {r["path"]: r for r in rows if r["name"] == "fuse"}
    assert [fuse["compile"][k] for k in SPEED_COLUMNS] == ["3.1", "faster", "batch 32", "3.1", "faster"]
    assert [fuse["onnx"][k] for k in SPEED_COLUMNS] == ["2.0", "faster", "", "", ""]
    assert [r[k] for r in rows if r["name"] == "plain" for k in SPEED_COLUMNS] == [""] * 15
    hostile = next(r for r in rows if r["name"] == "hostile")
    assert hostile["package"] == HOSTILE  # not a formula: as written


def test_a_ratio_of_zero_or_far_out_sits_at_the_axis_end():
    """A figure whose path took no measurable time has ratio 0 (the schema allows it); one far off the usual
    range (5,000×) must not stretch the axis out of reading: both are drawn at the axis's ends."""
    from bs4 import BeautifulSoup

    from sphinx_kexport.page.nodes import kexport_speed_picture
    from sphinx_kexport.page.writers.speed_svg import LEFT, RIGHT, speed_svg

    node = kexport_speed_picture(package="p", svg_id="s", sentences=["words"], key=False, strips=[
        {"path": "compile", "label": "torch.compile", "figures": [[0.0, "slower"], [5000.0, "faster"], [1.5, "faster"]]}])
    svg = BeautifulSoup(speed_svg(node), "lxml")
    xs = sorted(x for x, _ in _dots(svg))
    assert xs[0] == LEFT and xs[-1] == RIGHT and LEFT < xs[1] < RIGHT
    assert svg.find_all("text")[-3].get_text() == "1024×"  # the last tick: the axis's end
