"""The page says each fix once: a class that many failing cells share has its fix in words in the page's
legend of fixes ("Fixes by class") alone, and every cell and reason index entry that names the class links to
its entry there; other builders get the legend as a plain table and name the class in the cells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_support import build, copy_root, output, soup, warnings

from sphinx_kexport.snapshot.fix_classes import GUARD, NO_LOWERING, TENSOR_BRANCH

BRANCH = "a Python branch (if / while) tests tensor values at run time"
# plain words keep the reasons apart in the reason index (reason_groups.normalise): one entry each
STEPS = ("colour shuffle", "crop loop", "mask gate", "flip choice", "border fill", "kernel pick")


def _cell(status="ok", detail="", stage="", where=""):
    return {"status": status, "detail": detail, "stage": stage, "where": where}


def _snapshot() -> dict:
    cases = []
    for i, step in enumerate(STEPS):
        failing = _cell("fail", f"{BRANCH} in the {step}", "capture", f"lib/op{i}.py:{10 + i}")
        cases.append({"name": f"op{i}", "package": "lib", "section": "", "operator": f"op{i}", "variant": "",
                      "ref": "", "note": "", "results": {"cpu": {"onnx": dict(failing), "export": dict(failing),
                                                                 "compile": _cell()}}})
    cases.append({"name": "svd", "package": "lib", "section": "", "operator": "svd", "variant": "", "ref": "",
                  "note": "", "results": {"cpu": {"onnx": _cell("fail", "no ONNX lowering for torch.linalg.svd",
                                                                "translate"),
                                                  "export": _cell(), "compile": _cell()}}})
    env = {"torch": "2.13.0+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    return {"schema": 1, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
            "cases": cases}


def _root(tmp_path: Path, pages: int = 1) -> Path:
    src = copy_root("injection", tmp_path)
    (src / "_data" / "shared.json").write_text(json.dumps(_snapshot()), encoding="utf-8")
    (src / "index.rst").write_text("Fixes\n=====\n\n" + ".. export-support:: _data/shared.json\n\n" * pages,
                                   encoding="utf-8")
    return src


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The HTML page, parsed, of a build that warned of nothing."""
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    app = SphinxTestApp("html", srcdir=_root(tmp_path_factory.mktemp("legend")), freshenv=True, status=StringIO(),
                        warning=StringIO())
    build(app)
    assert (warnings(app), app.statuscode) == ("", 0)
    return soup(app)


def test_a_fix_many_cells_share_is_said_once(page):
    named = page.select('small.kx-fx[data-kx-fix="data-dependent-guard"]')
    assert len(named) == len(STEPS)  # every op<i>'s one detail for ONNX and torch.export
    assert len(page.select('.kx-rs p.kx-rc[data-kx-fix="data-dependent-guard"]')) == len(STEPS)
    text = page.get_text()
    for fix in (GUARD, NO_LOWERING):
        assert text.count(fix.fix) == 1, fix
    assert TENSOR_BRANCH.fix not in text  # no torch.compile cell fails: the class is not on the page


def test_every_cell_and_reason_links_to_its_class_in_the_legend(page):
    legend = page.select_one("table.kx-fl")
    assert [tr["data-kx-fix"] for tr in legend.select("tbody tr")] == ["data-dependent-guard", "onnx-lowering"]
    links = page.select("small.kx-fx a, p.kx-rc a")
    assert len(links) == 2 * len(STEPS) + 2  # the cells, the reason entries, and svd's cell and entry
    for link in links:
        owner = link.find_parent(attrs={"data-kx-fix": True})
        target = page.select_one(link["href"])  # a fragment on this page
        assert link["href"].startswith("#") and target is not None, link
        assert target.find_parent("table")["class"] == ["kx-fl"]
        assert target["data-kx-fix"] == owner["data-kx-fix"]
        assert link.get_text() == target.select("td")[0].get_text()  # the link's text is the class's title
    guard = page.select_one("#kx-fix-data-dependent-guard")
    assert guard.select("td")[1].get_text() == GUARD.fix + "."
    # the legend has its heading in the page's order: after the failure reasons
    headings = [r.get_text() for r in page.select("p.rubric")]
    assert headings.index("Fixes by class") == headings.index("Failure reasons") + 1


def test_two_pages_in_one_document_link_to_their_own_legend(tmp_path, make_app):
    app = make_app("html", srcdir=_root(tmp_path, pages=2), freshenv=True)
    build(app)
    assert warnings(app) == ""
    page = soup(app)
    first, second = page.select("div.kexport")
    assert {a["href"] for a in first.select("small.kx-fx a")} == {"#kx-fix-data-dependent-guard",
                                                                    "#kx-fix-onnx-lowering"}
    assert {a["href"] for a in second.select("small.kx-fx a")} == {"#kx-fix-data-dependent-guard-2",
                                                                     "#kx-fix-onnx-lowering-2"}
    for a in second.select("small.kx-fx a"):
        assert second.select_one(a["href"]) is not None


def test_other_builders_give_the_legend_as_a_table_and_the_class_in_the_cells(tmp_path, make_app):
    app = make_app("text", srcdir=_root(tmp_path), freshenv=True)
    build(app)
    assert warnings(app) == ""
    text = " ".join(output(app, "index.txt").split())
    assert "Fixes by class" in text
    # the fixes' first words (a table cell wraps the rest)
    assert text.count("tell the tracer what holds") == 1 and text.count("decompose the operator") == 1
    assert text.count("(fix: a data-dependent guard)") == len(STEPS)
