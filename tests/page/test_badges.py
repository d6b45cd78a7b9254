"""``kexport_api_badges``: status badges on the project's own API entries.

tests/page/roots/test-features documents featurelib.geometry by hand (``py:function``,
``py:class`` with a method) and featurelib.color with autodoc, and turns the
badges on.
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from page_support import build, copy_root, output, soup, warnings


def _badges(page):
    """{entry id: [(path, [(mark text, state)], href, badge state)]}"""
    found = {}
    for dl in page.select("dl.py"):
        dt = dl.find("dt")
        line = dl.find("dd").find("p", class_="kexport-badge-line", recursive=False) if dl.find("dd") else None
        if line is None:
            continue
        found[dt["id"]] = [
            (a.select_one(".kexport-badge-path").get_text(),
             [(m.get_text(), next(c for c in m["class"] if c.startswith("kexport-badge--"))[15:])
              for m in a.select(".kexport-badge-mark")],
             a.get("href"), next(c for c in a["class"] if c.startswith("kexport-badge--"))[15:])
            for a in line.select(".kexport-badge")]
    return found


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("features", "html")


def test_build_is_silent(html):
    assert warnings(html) == ""


def test_hand_written_entries_get_a_strip_per_path_and_device(html):
    badges = _badges(soup(html, "api.html"))
    assert set(badges) == {"featurelib.geometry.warp_affine", "featurelib.geometry.solve",
                           "featurelib.geometry.Affine"}  # not_surveyed and the nested method get none
    warp = badges["featurelib.geometry.warp_affine"]
    assert [(path, marks) for path, marks, _, _ in warp] == [
        ("ONNX", [("CPU no", "fail"), ("CUDA no", "fail")]),
        ("torch.export", [("CPU yes", "ok"), ("CUDA yes", "ok")]),
        ("torch.compile", [("CPU yes", "ok"), ("CUDA yes", "ok")]),
    ]
    # two configurations (plain and [fill]) share the ref; the badge links to the first row
    assert {href for _, _, href, _ in warp} == {"index.html#kx-geometry-warp-affine"}
    solve = dict((path, (marks, state)) for path, marks, _, state in badges["featurelib.geometry.solve"])
    assert solve["torch.compile"] == ([("CPU no", "fail"), ("CUDA yes", "ok")], "fail")


def test_autodoc_entries_get_badges_too(html):
    badges = _badges(soup(html, "autodoc.html"))
    assert set(badges) == {"featurelib.color.rgb_to_gray", "featurelib.color.hsv_to_rgb"}
    rgb = badges["featurelib.color.rgb_to_gray"]
    assert rgb[2][:2] == ("torch.compile", [("CPU yes", "ok"), ("CUDA no", "fail")])
    assert rgb[0][2] == "index.html#kx-color-rgb-to-gray"


def test_badge_links_land_on_rows(html):
    index = soup(html, "index.html")
    for page in ("api.html", "autodoc.html"):
        for strips in _badges(soup(html, page)).values():
            for _, _, href, _ in strips:
                assert index.select_one("tr#" + href.split("#", 1)[1]) is not None


def test_pages_with_badges_get_the_stylesheet(html):
    styles = [link["href"] for link in soup(html, "api.html").select("link[rel=stylesheet]")]
    assert any("kexport.css" in href for href in styles)


def test_badge_words_stay_out_of_the_search_index(html):
    # Sphinx indexes the text of raw HTML; the strips are no document text, and every entry
    # would otherwise match "cpu" and "cuda"
    text = (html.outdir / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    api = [i for i, name in enumerate(index["docnames"]) if name in ("api", "autodoc")]
    assert len(api) == 2
    for word in ("cpu", "cuda"):
        docs = index["terms"].get(word, [])
        docs = docs if isinstance(docs, list) else [docs]
        assert not set(docs) & set(api), word


def test_off_by_default(build_once):
    app = build_once("basic", "html")
    assert not soup(app, "api.html").select(".kexport-badge")


def test_parallel_build_gives_the_same_badges(make_app, tmp_path):
    serial = build(make_app("html", srcdir=copy_root("features", tmp_path / "serial"), freshenv=True))
    parallel = build(make_app("html", srcdir=copy_root("features", tmp_path / "parallel"), freshenv=True,
                              parallel=2))
    assert warnings(serial) == "" and warnings(parallel) == ""
    for page in ("api.html", "autodoc.html"):
        assert _badges(soup(parallel, page)) == _badges(soup(serial, page))
    assert _badges(soup(parallel, "api.html"))


@pytest.mark.parametrize("builder, page, href", [
    ("dirhtml", "api/index.html", "../#kx-geometry-solve"),
    ("singlehtml", "index.html", "#kx-geometry-solve"),
])
def test_links_in_other_html_layouts(build_once, builder, page, href):
    app = build_once("features", builder)
    assert warnings(app) == ""
    badges = _badges(soup(app, page))
    assert badges["featurelib.geometry.solve"][0][2] == href


def test_text_builder_gets_plain_badges(build_once):
    app = build_once("features", "text")
    text = output(app, "api.txt")
    assert "ONNX: CPU no, CUDA no · torch.export: CPU no, CUDA no · torch.compile: CPU no, CUDA yes" in \
        re.sub(r"\s+", " ", text)
    # wrapped by the extension (the text writer leaves raw text alone) within the writer's 70 columns
    strip = [line for line in text.splitlines() if "CPU" in line and "CUDA" in line]
    assert strip and max(len(line) for line in strip) <= 70


def test_badges_follow_a_changed_snapshot(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    first = build(make_app("html", srcdir=src, freshenv=True))
    assert _badges(soup(first, "api.html"))["featurelib.geometry.solve"][2][1][1] == ("CUDA yes", "ok")
    snapshot = src / "_data" / "new.json"
    data = json.loads(snapshot.read_text())
    solve = next(c for c in data["cases"] if c["name"] == "geometry.solve")
    solve["results"]["cuda"]["compile"] = {"status": "fail", "detail": "boom", "stage": "run", "where": "",
                                           "graph_breaks": 0}
    snapshot.write_text(json.dumps(data))
    later = time.time() + 2
    os.utime(snapshot, (later, later))
    second = build(make_app("html", srcdir=src))
    assert warnings(second) == ""
    assert _badges(soup(second, "api.html"))["featurelib.geometry.solve"][2][1][1] == ("CUDA no", "fail")


@pytest.mark.parametrize("name", ["kexport_api_badges", "kexport_downloads"])
def test_a_wrong_config_value_is_one_error(make_app, tmp_path, name):
    src = copy_root("features", tmp_path)
    with open(src / "conf.py", "a") as conf:
        conf.write(f"{name} = 'yes'\n")
    app = build(make_app("html", srcdir=src, freshenv=True))
    assert warnings(app).strip().splitlines() == [f"ERROR: conf.py: {name} must be True or False, found str 'yes'."]
    assert app.statuscode == 1
