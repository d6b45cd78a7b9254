"""The fix beside the failure and where to fix first, on the page: a red detail's class and fix, the reason
index's concrete instance and fix, and the ``:worklist:`` section (one table per torch version, operators
linked to their rows); every snapshot string in them is text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_support import build, copy_root, output, soup, warnings

BRANCH = "a Python branch (if / while) tests tensor values at run time"
EVIL = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def _cell(status="ok", detail="", where="", stage="", **extra):
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


def _case(name, onnx=None, export=None, compile=None):
    return {"name": name, "package": "lib", "section": "", "operator": name, "variant": "", "ref": "", "note": "",
            "results": {"cpu": {"onnx": onnx or _cell(), "export": export or _cell(), "compile": compile or _cell()}}}


def _snapshot(torch: str, cases: list[dict]) -> str:
    env = {"torch": f"{torch}+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    return json.dumps({"schema": 1, "generated_at": "2026-11-29", "complete": True,
                       "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
                       "cases": cases})


def _root(tmp_path: Path, worklist: str = "on") -> Path:
    src = copy_root("injection", tmp_path)
    fail = lambda detail, where: _cell("fail", detail, where, "capture")  # noqa: E731
    (src / "_data" / "new.json").write_text(_snapshot("2.13.0", [
        _case("jiggle", export=fail(BRANCH, "lib/jiggle.py:98"), onnx=fail(BRANCH, "lib/jiggle.py:98"),
              compile=_cell("ok-breaks", f"2 graph breaks: {BRANCH}", "lib/jiggle.py:98", graph_breaks=2)),
        _case("sequential", export=fail(BRANCH, "lib/jiggle.py:98")),
        _case("svd", onnx=_cell("fail", "no ONNX lowering for torch.linalg.svd", "", "translate")),
        _case("evil", export=fail(f"{BRANCH} {EVIL}", EVIL)),
        _case("loop", compile=_cell("ok-breaks", f"1 graph break: {BRANCH}", "lib/loop.py:5", graph_breaks=1,
                                    where_code=f"if not mask.any():\n    break  # {EVIL}")),
    ]), encoding="utf-8")
    (src / "_data" / "old.json").write_text(_snapshot("2.11.0", [
        _case("jiggle", export=fail(BRANCH, "lib/jiggle.py:98")),
        _case("svd", export=fail(BRANCH, "lib/old.py:7")),
    ]), encoding="utf-8")
    (src / "index.rst").write_text(
        "Fixes\n=====\n\n.. export-support:: _data/new.json _data/old.json\n"
        + (f"   :worklist: {worklist}\n" if worklist is not None else ""), encoding="utf-8")
    return src


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    src = _root(tmp_path_factory.mktemp("fixes"))
    return build(SphinxTestApp("html", srcdir=src, freshenv=True, status=StringIO(), warning=StringIO()))


def test_build_is_silent(html):
    assert warnings(html) == "" and html.statuscode == 0


def test_a_red_detail_shows_its_class_and_fix(html):
    row = soup(html).select_one("tr#kx-jiggle")
    fixes = {d["data-kx-fix"]: d for d in row.select("small.kx-fx")}
    # the same words: a data-dependent guard under torch.export and ONNX, a branch on tensor values under
    # torch.compile (its own detail, with the graph-break count)
    assert set(fixes) == {"data-dependent-guard", "tensor-branch"}
    guard = fixes["data-dependent-guard"]
    assert guard.get_text() == "a data-dependent guard"
    # the fix in words is the page's legend of fixes', where the class links (tests/page/test_fix_legend.py)
    fix = soup(html).select_one(guard.a["href"]).get_text()
    assert "torch._check" in fix and "torch.cond" in fix
    assert "torch.where" in soup(html).select_one(fixes["tensor-branch"].a["href"]).get_text()
    # the class sits after its reason, once per class
    assert [d["data-kx-fix"] for d in row.select("small.kx-fx")] == ["data-dependent-guard", "tensor-branch"]
    # a supported cell without graph breaks has no class; only the svd row's failing ONNX cell has one
    svd = soup(html).select_one("tr#kx-svd")
    assert [d["data-kx-fix"] for d in svd.select("small.kx-fx")] == ["onnx-lowering"]


def test_the_reason_index_words_each_entry_by_an_instance_with_its_fix(html):
    page = soup(html)
    index = page.select_one(".kx-rw:not([hidden]) table.kx-rs")
    entries = {tr.select_one(".kx-rt").get_text(): tr for tr in index.select("tbody > tr")}
    lowering = entries["no ONNX lowering for torch.linalg.svd"]
    assert lowering.select_one(".kx-ri").get_text() == "e.g. svd"
    assert lowering.select_one("p.kx-rc")["data-kx-fix"] == "onnx-lowering"
    branch = entries[BRANCH]
    assert branch.select_one(".kx-ri").get_text() == "e.g. jiggle (lib/jiggle.py:98)"
    assert lowering.select_one("p.kx-rc").get_text() == "no ONNX lowering for an operator"
    assert "decompose" in page.select_one(lowering.select_one("p.kx-rc a")["href"]).get_text()
    assert all("‹" not in text for text in entries)


def test_the_worklist_section_ranks_lines_per_version_with_links(html):
    page = soup(html)
    assert page.select_one("#export-support-worklist").get_text() == "Where to fix first"
    tables = page.select("table.kexport-worklist")
    assert len(tables) == 2  # 2.13.0, then 2.11.0
    rows = [[td.get_text(" ", strip=True) for td in tr.select("td")] for tr in tables[0].select("tbody tr")]
    assert [(r[1], r[2], r[3], r[4]) for r in rows[:2]] == [("lib/jiggle.py:98", "torch.export", "2", "2"),
                                                          ("lib/jiggle.py:98", "ONNX", "1", "1")]
    first = tables[0].select("tbody tr")[0]
    assert [a["href"] for a in first.select("a")] == ["#kx-jiggle", "#kx-sequential"]
    for a in first.select("a"):
        assert page.select_one(f"tr{a['href']}") is not None
    assert first.select("td")[5].get_text().startswith("a data-dependent guard: tell the tracer what holds")
    older = [[td.get_text(" ", strip=True) for td in tr.select("td")] for tr in tables[1].select("tbody tr")]
    assert [(r[1], r[-1]) for r in older] == [("lib/jiggle.py:98", "yes"), ("lib/old.py:7", "no")]
    assert tables[1].select("thead th")[-1].get_text() == "Blocks in torch 2.13.0"


def test_snapshot_markup_stays_text_in_the_worklist_and_the_fixes(html):
    page = soup(html)
    assert not page.select(".kexport img, .kexport script")
    worklist = page.select_one("table.kexport-worklist")
    assert any(EVIL in td.get_text() for td in worklist.select("td"))
    raw = output(html, "index.html")
    assert "<img src=x" not in raw and "<script>alert(2)" not in raw
    assert "&lt;img src=x onerror=" in raw


def test_without_the_option_there_is_no_worklist(tmp_path, make_app):
    app = make_app("html", srcdir=_root(tmp_path, worklist=None), freshenv=True)
    build(app)
    assert warnings(app) == ""
    assert soup(app).select_one("table.kexport-worklist") is None


def test_a_bad_option_value_is_one_error(tmp_path, make_app):
    app = make_app("html", srcdir=_root(tmp_path, worklist="lots"), freshenv=True)
    build(app)
    assert "option :worklist:: expected on, off or a number of lines (1 or more), found 'lots'" in warnings(app)


def test_other_builders_get_the_worklist_as_a_table(tmp_path, make_app):
    app = make_app("text", srcdir=_root(tmp_path), freshenv=True)
    build(app)
    assert warnings(app) == ""
    text = output(app, "index.txt")
    assert "Where to fix first" in text and "lib/jiggle.py:98" in text and "With torch 2.11.0:" in text


def _reference_root(tmp_path: Path, intersphinx: bool) -> Path:
    src = copy_root("injection", tmp_path)
    (src / "index.rst").write_text("Classes\n=======\n\n.. kexport-fix-classes::\n", encoding="utf-8")
    if intersphinx:
        inventory = Path(__file__).resolve().parents[2] / "example_docs" / "_inventories" / "torch.inv"
        with open(src / "conf.py", "a", encoding="utf-8") as conf:
            conf.write('\nextensions.append("sphinx.ext.intersphinx")\n'
                       f'intersphinx_mapping = {{"pt": ("https://docs.example/torch/", {str(inventory)!r})}}\n')
    return src


def test_the_reference_page_lists_every_class_with_its_fix_and_code_shape(tmp_path, make_app):
    from sphinx_kexport.snapshot.fix_classes import FIX_CLASSES

    app = make_app("html", srcdir=_reference_root(tmp_path, intersphinx=True), freshenv=True)
    build(app)
    assert warnings(app) == ""
    page = soup(app)
    for fix in FIX_CLASSES:
        title = page.select_one(f"#kexport-fix-{fix}")
        assert title is not None and title.get_text() == fix.title
    codes = [pre.get_text() for pre in page.select("pre")]
    assert "torch._assert_async((t >= 0).all(), \"negative\")\n" in codes
    assert len(codes) == 2 * (len(FIX_CLASSES) - 1)  # before and after, but for "unclassified"
    assert "the words do not say which class it is: read the library line the cell names" in page.get_text()
    # torch's names link into torch's docs through the (offline) intersphinx inventory, documents too
    links = {a.get_text(): a["href"] for a in page.select("a.reference.external")}
    assert links["torch.where"] == "https://docs.example/torch/generated/torch.where.html"
    assert links["torch._check"] == "https://docs.example/torch/generated/torch._check.html"
    assert links["common graph breaks"].endswith("compile/programming_model.common_graph_breaks.html")


def test_without_an_inventory_the_reference_page_keeps_the_names_as_code(tmp_path, make_app):
    app = make_app("html", srcdir=_reference_root(tmp_path, intersphinx=False), freshenv=True)
    build(app)
    assert warnings(app) == ""
    page = soup(app)
    assert not page.select("a.reference.external")
    assert "torch.where" in [c.get_text() for c in page.select("code")]


@pytest.mark.parametrize("builder, page, href", [("html", "index.html", "ref/fixes.html"),
                                                 ("dirhtml", "index.html", "ref/fixes/")])
def test_a_class_title_links_to_its_entry_on_the_reference_page(tmp_path, make_app, builder, page, href):
    src = _root(tmp_path)
    (src / "ref").mkdir()
    (src / "ref" / "fixes.rst").write_text("Classes\n=======\n\n.. kexport-fix-classes::\n", encoding="utf-8")
    with open(src / "index.rst", "a", encoding="utf-8") as index:
        index.write("\n.. toctree::\n\n   ref/fixes\n")
    app = make_app(builder, srcdir=src, freshenv=True)
    build(app)
    assert warnings(app) == ""
    html = soup(app, page)
    # a cell links to its class in the page's legend of fixes, whose title links to the reference page
    cell_links = [a["href"] for a in html.select("tr#kx-jiggle small.kx-fx a")]
    assert cell_links == ["#kx-fix-data-dependent-guard", "#kx-fix-tensor-branch"]
    legend_links = [html.select_one(link).a["href"] for link in cell_links]
    assert legend_links == [f"{href}#kexport-fix-data-dependent-guard", f"{href}#kexport-fix-tensor-branch"]
    every_class = [a["href"] for a in html.select("table.kx-fl a")]
    assert f"{href}#kexport-fix-onnx-lowering" in every_class
    reference = soup(app, "ref/fixes.html" if builder == "html" else "ref/fixes/index.html")
    for link in every_class:
        assert reference.select_one("#" + link.split("#")[1]) is not None, link


def test_without_a_reference_page_the_class_titles_in_the_legend_stay_text(html):
    page = soup(html)
    assert not page.select("table.kx-fl a")
    assert "a data-dependent guard" in [tr.td.get_text() for tr in page.select("table.kx-fl tbody tr")]
    assert page.select("small.kx-fx a")  # the cells link to the legend all the same


def test_the_statement_at_the_line_is_shown_and_names_the_shape(html):
    row = soup(html).select_one("tr#kx-loop")
    # the statement the probe read at the line tells which of the branch shapes it is
    assert [d["data-kx-fix"] for d in row.select("small.kx-fx")] == ["early-exit"]
    shown = row.select("details.kx-wcs pre.kx-wc")
    assert [(p["data-w"], p.get_text()) for p in shown] == [("lib/loop.py:5", f"if not mask.any():\n    break  # {EVIL}")]
    # rows without a recorded statement (an older probe's) show none and keep the words' class
    assert not soup(html).select("tr#kx-jiggle details.kx-wcs")
    # the worklist names the line with its statement and class
    line = [tr for tr in soup(html).select("table.kexport-worklist")[0].select("tbody tr")
            if "lib/loop.py:5" in tr.get_text()]
    assert line[0].select_one("code.kexport-worklist-code").get_text() == f"if not mask.any(): break # {EVIL}"
    assert line[0].select("td")[5].get_text().startswith("an early exit of a bounded loop: remove the early exit")


def test_other_builders_give_the_statement_on_one_line(tmp_path, make_app):
    app = make_app("text", srcdir=_root(tmp_path), freshenv=True)
    build(app)
    text = " ".join(output(app, "index.txt").split())
    assert f"(at lib/loop.py:5: if not mask.any(): break # {EVIL})" in text
    assert "(fix: an early exit of a bounded loop)" in text
