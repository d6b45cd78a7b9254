"""The data handed over: the snapshot's JSON (as committed) and CSV next to the page."""

from __future__ import annotations

import csv
import io
import posixpath
from pathlib import Path

import pytest
from page_support import ROOTS, build, copy_root, output, soup, warnings

from sphinx_kexport.snapshot.csv_table import CSV_COLUMNS

SNAPSHOT = ROOTS / "test-features" / "_data" / "new.json"


def _links(app, page):
    found = soup(app, page).select("p.kexport-downloads a.kx-dl")
    return [a["href"] for a in found]


def _target(app, page: str, href: str) -> Path:
    return Path(app.outdir, posixpath.normpath(posixpath.join(posixpath.dirname(page), href)))


@pytest.mark.parametrize("builder, page", [("html", "index.html"), ("dirhtml", "index.html"),
                                           ("singlehtml", "index.html")])
def test_links_point_at_the_published_files(build_once, builder, page):
    app = build_once("features", builder)
    assert warnings(app) == ""
    hrefs = _links(app, page)
    assert len(hrefs) == 2 and hrefs[0].endswith(".json") and hrefs[1].endswith(".csv")
    assert all(h.startswith("_kexport/new-") for h in hrefs)  # relative to the page
    json_file, csv_file = (_target(app, page, h) for h in hrefs)
    assert json_file.read_bytes() == SNAPSHOT.read_bytes()  # byte for byte, as committed
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text(encoding="utf-8"))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 7 * 2 * 3  # one row per case, device and path


def test_links_from_a_page_in_a_sub_folder(make_app, tmp_path):
    src = copy_root("features", tmp_path)
    (src / "sub").mkdir()
    (src / "sub" / "deep.rst").write_text(":orphan:\n\nDeep\n====\n\n.. export-support:: /_data/new.json\n")
    for builder, page in (("html", "sub/deep.html"), ("dirhtml", "sub/deep/index.html")):
        app = build(make_app(builder, srcdir=src, freshenv=True))
        assert warnings(app) == ""
        hrefs = _links(app, page)
        assert hrefs[0].startswith("../" if builder == "html" else "../../")
        assert _target(app, page, hrefs[0]).read_bytes() == SNAPSHOT.read_bytes()


def test_csv_defuses_spreadsheet_formulas_and_keeps_text(build_once):
    app = build_once("features", "html")
    csv_file = _target(app, "index.html", _links(app, "index.html")[1])
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text(encoding="utf-8"))))
    solve = [r for r in rows if r["name"] == "geometry.solve" and r["device"] == "cpu"]
    assert solve[2]["detail"] == "'=HYPERLINK(\"http://evil.example\")"
    assert solve[1]["detail"].startswith("<img src=x")
    assert any(r["name"] == "filters.blur<b>" for r in rows)


def test_the_link_text_names_the_formats(build_once):
    app = build_once("features", "html")
    para = soup(app).select_one("p.kexport-downloads")
    assert "Snapshot (JSON, 11 KB)" in para.get_text() and "table (CSV)" in para.get_text()
    assert all(a.has_attr("download") for a in para.select("a"))


def test_non_html_builders_get_no_links_and_no_files(build_once):
    app = build_once("features", "text")
    assert "_kexport" not in output(app, "index.txt")
    assert not Path(app.outdir, "_kexport").exists()


def test_downloads_can_be_switched_off(build_once):
    app = build_once("features", "html", confoverrides={"kexport_downloads": False})
    assert warnings(app) == ""
    assert soup(app).select_one("p.kexport-downloads") is None
    assert not Path(app.outdir, "_kexport").exists()


def test_parallel_build_publishes_every_snapshot(make_app, tmp_path):
    src = copy_root("parallel", tmp_path)
    app = build(make_app("html", srcdir=src, freshenv=True, parallel=2))
    assert warnings(app) == ""
    published = sorted(p.name for p in Path(app.outdir, "_kexport").iterdir())
    pages = [name for name in ("all.html", "colour.html", "geometry.html")]
    for page in pages:
        for href in _links(app, page):
            assert Path(href).name in published
    assert len(published) == 2 * len({_links(app, p)[0] for p in pages})


def test_a_changed_snapshot_is_published_under_a_new_name(make_app, tmp_path):
    import os
    import time

    src = copy_root("features", tmp_path)
    first = build(make_app("html", srcdir=src, freshenv=True))
    before = _links(first, "index.html")[0]
    snapshot = src / "_data" / "new.json"
    snapshot.write_text(snapshot.read_text().replace('"1.3.0"', '"1.3.1"'))
    later = time.time() + 2
    os.utime(snapshot, (later, later))
    second = build(make_app("html", srcdir=src))
    after = _links(second, "index.html")[0]
    assert after != before
    assert _target(second, "index.html", after).read_bytes() == snapshot.read_bytes()


def test_epub_is_silent_and_gets_no_files(build_once):
    app = build_once("features", "epub")
    assert warnings(app) == ""
    assert not Path(app.outdir, "_kexport").exists()
