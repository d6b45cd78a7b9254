"""torch.compile's column follows ``fullgraph=True`` (issue 60): a cell that fullgraph=True compiles reads "yes"
with the default compile's breaks as a note, a default compile that compiles nothing is told apart from one
with breaks, and the legend, the summary's graph-break count and the worklist's compile rows count only the
cells where fullgraph=True fails."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from page_support import build, copy_root, soup, warnings

from sphinx_kexport.snapshot import files, worklist

ITEM = "a tensor value is read back into Python (.item())"
BRANCH = "a Python branch (if / while) tests tensor values at run time"


def _cell(status="ok", detail="", where="", stage="", **extra):
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


def _case(name, compile):
    return {"name": name, "package": "lib", "section": "", "operator": name, "variant": "", "ref": "", "note": "",
            "results": {"cpu": {"onnx": _cell(), "export": _cell(), "compile": compile}}}


CASES = [
    # fullgraph=True compiles it; the default compile breaks once at .item(), which a dynamo flag removes
    _case("pool", _cell("ok", "torch.compile(fn, fullgraph=True) compiles it as one graph; the default torch.compile "
                              f"breaks it at 1 graph break ({ITEM})", fullgraph=True, graphs=2, graph_breaks=1,
                        break_reasons=[ITEM], breaks_removed_by=["capture_scalar_outputs"])),
    # fullgraph=True fails at a branch on tensor values; the default compile runs in two graphs
    _case("branchy", _cell("ok-breaks", f"1 graph break: {BRANCH}", "lib/branchy.py:5", fullgraph=False, graphs=2,
                           graph_breaks=1, break_reasons=[BRANCH])),
    # fullgraph=True fails; the default compile compiles no graph at all
    _case("eager_only", _cell("ok-breaks", f"dynamo compiled no graph: the whole function runs eagerly ({BRANCH})",
                              "lib/eager_only.py:9", fullgraph=False, graphs=0, graph_breaks=1,
                              break_reasons=[BRANCH])),
]


def _snapshot() -> str:
    env = {"torch": "2.13.0+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-12-07"}
    return json.dumps({"schema": 1, "generated_at": "2026-12-07", "complete": True,
                       "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
                       "cases": CASES})


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    src = copy_root("injection", tmp_path_factory.mktemp("compile-rule"))
    (src / "_data" / "new.json").write_text(_snapshot(), encoding="utf-8")
    (src / "index.rst").write_text("Compile\n=======\n\n.. export-support:: _data/new.json\n   :worklist: on\n",
                                   encoding="utf-8")
    return src


@pytest.fixture(scope="module")
def html(root):
    from sphinx.testing.util import SphinxTestApp

    return build(SphinxTestApp("html", srcdir=root, freshenv=True, status=StringIO(), warning=StringIO()))


def _compile_cell(page, name) -> tuple[str, str]:
    """(the status text, the note after it) of the row's torch.compile cell (columns: name, ONNX, export, compile)."""
    cell = page.select_one(f"tr#kx-{name}").find_all("td", recursive=False)[3]
    note = cell.find("small")
    text = cell.contents[0]
    return text.get_text(strip=True) if hasattr(text, "get_text") else str(text).strip(), \
        note.get_text(strip=True) if note else ""


def test_build_is_silent(html):
    assert warnings(html) == "" and html.statuscode == 0


def test_a_cell_fullgraph_compiles_reads_yes_with_the_default_compiles_breaks_as_a_note(html):
    assert _compile_cell(soup(html), "pool") == ("yes", "default compile: 1 break")


def test_a_default_compile_that_compiles_nothing_is_told_apart_from_breaks(html):
    page = soup(html)
    assert _compile_cell(page, "eager-only") == ("yes, no graph compiled", "")
    assert _compile_cell(page, "branchy") == ("yes, 1 break", "")


def test_the_legend_says_the_rule(html):
    legend = soup(html).select_one("table.kexport-legend").get_text(" ", strip=True)
    assert "yes, default compile: N breaks" in legend
    assert "follows torch.compile(fn, fullgraph=True)" in legend
    assert "torch.compile(fn, fullgraph=True) fails, but the default torch.compile runs" in legend


def test_the_worklist_and_the_fix_classes_count_only_cells_where_fullgraph_fails(html, root):
    snapshot = files.load_snapshot(root / "_data" / "new.json")
    blocked = {(b.case.name, b.path) for b in worklist.blocked_cells(snapshot)}
    assert blocked == {("branchy", "compile"), ("eager_only", "compile")}
    page = soup(html)
    # no fix class beside the note of a cell that fullgraph=True compiles: nothing to fix
    assert not page.select("tr#kx-pool small.kx-fx")
    assert page.select("tr#kx-branchy small.kx-fx")
