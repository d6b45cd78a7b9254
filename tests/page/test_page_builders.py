"""Every builder gets a readable page and no warning: singlehtml, dirhtml and
epub (HTML-based), LaTeX, text, man and texinfo; and a 1,200-row snapshot
builds in seconds in each static format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from page_support import ROOTS, counts, output, soup, warnings



@pytest.mark.parametrize("builder", ["singlehtml", "dirhtml", "epub"])
def test_html_family_builders_render_the_page_and_resolve_links(build_once, builder):
    app = build_once("basic", builder)
    assert warnings(app) == ""
    page_file = {"singlehtml": "index.html", "dirhtml": "index.html", "epub": "index.xhtml"}[builder]
    page = soup(app, page_file)
    assert counts(page.select_one(".kexport-cards"))["onnx-cpu"] == "3 / 6"
    assert page.select_one("#export-support-mylib-color") is not None
    hrefs = {a["href"] for a in page.select("div.kexport a[href]") if "rgb_to_gray" in a["href"]}
    expected = {"singlehtml": "#mylib.color.rgb_to_gray", "dirhtml": "api/#mylib.color.rgb_to_gray",
                "epub": "api.xhtml#mylib.color.rgb_to_gray"}[builder]
    assert hrefs == {expected}


def test_text_builder_writes_aligned_rows_and_reasons(build_once):
    app = build_once("basic", "text")
    assert warnings(app) == ""
    text = output(app, "index.txt")
    assert "Operator     ONNX  torch.export  torch.compile" in text
    assert "hsv_to_rgb   no    yes           yes, 2 breaks" in text
    assert "    ONNX: no ONNX lowering for aten::atan2 (fix: no ONNX lowering for an\n    operator) (at mylib/color/hsv.py:40)" in text
    assert "warp_affine [fill]  mismatch  yes           yes" in text
    # the search controls are for browsers only
    assert "Search" not in text and "every configuration" not in text
    assert "How this was measured." in text and "3 / 6" in text


def test_latex_builder_writes_one_longtable_per_table(build_once):
    app = build_once("basic", "latex")
    assert warnings(app) == ""
    tex = output(app, "mylib.tex")
    assert tex.count(r"\begin{longtable}") == 5  # one per row table; legend and summary are small tables
    assert r"{\hyperref[\detokenize{api:mylib.color.hsv_to_rgb}]{\sphinxcode{\sphinxupquote{hsv\_to\_rgb}}}} & \textbf{no} & yes & yes, 2 breaks \\" in tex
    assert r"\textbf{ONNX:} no ONNX lowering for aten::atan2 (fix: no ONNX lowering for an operator) (at \sphinxcode{\sphinxupquote{mylib/color/hsv.py:40}})" in tex
    # an operator without a target is plain code, not a broken link
    assert r"\sphinxcode{\sphinxupquote{project\_points}} & \textbf{no}" in tex
    assert "kexport-controls" not in tex and "Search" not in tex


@pytest.mark.parametrize("builder, name", [("man", "mylib.1"), ("texinfo", "mylib.texi")])
def test_man_and_texinfo_get_a_compact_list(build_once, builder, name):
    app = build_once("basic", builder)
    assert warnings(app) == ""
    text = output(app, name)
    assert "hsv_to_rgb" in text and "yes, 2 breaks" in text
    assert "no ONNX lowering for aten::atan2" in text
    assert "torch.compile: yes, 2 breaks" in text
    assert "every configuration" not in text


@pytest.mark.parametrize("theme, toc", [("pydata_sphinx_theme", "#pst-page-toc-nav a"), ("furo", ".toc-tree a"),
                                        ("sphinx_rtd_theme", None)])
def test_themes_build_silently_and_list_packages_on_this_page(build_once, theme, toc):
    app = build_once("basic", "html", confoverrides={"html_theme": theme})
    assert warnings(app) == ""
    page = soup(app)
    assert page.select_one("div.kexport .kexport-cards") is not None
    if toc:  # the theme's "On this page" navigation
        entries = [a.get_text(strip=True) for a in page.select(toc)]
        assert ["mylib.geometry", "Core", "Transforms", "Camera", "mylib.color", "mylib.utils", "Afterword"] == [
            e for e in entries if e not in ("mylib export support", "Show Source")]


# --------------------------------------------------------------------------
# scale: Kornia's real page has about 1,200 rows


def _big_kornia_snapshot(path: Path, rows: int = 1200) -> None:
    sample = json.loads((ROOTS / "test-kornia" / "_data" / "export_support.json").read_text())
    cases = []
    for i in range(rows):
        case = dict(sample["cases"][i % len(sample["cases"])])
        case["name"] = f"{case['name']}#{i}"
        case["operator"] = f"{case['operator']}_{i // len(sample['cases'])}"
        case["package"] = f"{case['package']}{i % 12}"
        cases.append(case)
    sample["cases"] = cases
    path.write_text(json.dumps(sample))


@pytest.fixture(scope="module")
def big_root(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("big") / "src"
    shutil.copytree(ROOTS / "test-kornia", src)
    _big_kornia_snapshot(src / "_data" / "export_support.json")
    return src


@pytest.mark.parametrize("builder, name", [("text", "index.txt"), ("latex", "kornia-sample.tex"),
                                           ("man", "kornia-sample.1"), ("texinfo", "kornia-sample.texi")])
def test_a_1200_row_snapshot_builds_in_every_builder(big_root, tmp_path, builder, name):
    # how long each builder takes is a benchmark's figure (benchmarks/bench_page.py --builders), not a test's
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    app = SphinxTestApp(builder, srcdir=big_root, builddir=tmp_path / "build", freshenv=True,
                        status=StringIO(), warning=StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    assert warnings(app) == ""
    text = output(app, name)
    assert "Normalize_69" in text.replace(r"\_", "_").replace(r"\(ru", "_")
