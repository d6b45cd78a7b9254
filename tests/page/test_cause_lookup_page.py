"""The page looks a red detail's class up by its cause record, never by its words: a cell whose cause id says
one class while its words would read as another shows the id's class, in the row's Details, in the reason index
and in the worklist; a cell of an older snapshot (no cause) keeps the class its words read as before."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from page_support import build, copy_root, soup, warnings

from sphinx_kexport.snapshot.vocabulary import ORIGIN_HAND

# words that read as a data-dependent guard on torch.export (the legacy reader), with a cause that says otherwise
BRANCH = "a Python branch (if / while) tests tensor values at run time"


def _cell(status="ok", detail="", where="", stage="", **extra):
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


def _snapshot(cases: list[dict]) -> str:
    env = {"torch": "2.13.0+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    return json.dumps({"schema": 2, "generated_at": "2026-11-29", "complete": True,
                       "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
                       "cases": cases})


def _case(name, export, onnx=None):
    return {"name": name, "package": "lib", "section": "", "operator": name, "variant": "", "ref": "", "note": "",
            "origin": ORIGIN_HAND, "results": {"cpu": {"onnx": onnx or _cell(), "export": export,
                                                  "compile": _cell(graph_breaks=0)}}}


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    from sphinx.testing.util import SphinxTestApp

    src = copy_root("injection", tmp_path_factory.mktemp("causes"))
    (src / "_data" / "new.json").write_text(_snapshot([
        # the id says a constant mutated in place; the words would read as a data-dependent guard
        _case("mutates", _cell("fail", BRANCH, "lib/m.py:3", "capture", cause={"id": "constant-mutation"})),
        # a dynamic result: the id says a sparse tensor, its words a batch made a constant
        _case("sparse", _cell("ok", dynamic={
            "status": "static", "detail": "works only at batch 2: the batch size is specialised by the traced code",
            "where": "lib/s.py:4", "cause": {"id": "sparse-tensor"}})),
        # an older probe's record: no cause, so its words tell (the legacy reader)
        _case("older", _cell("fail", BRANCH, "lib/o.py:5", "capture")),
    ]), encoding="utf-8")
    (src / "index.rst").write_text("Causes\n======\n\n.. export-support:: _data/new.json\n   :worklist: on\n",
                                   encoding="utf-8")
    return build(SphinxTestApp("html", srcdir=src, freshenv=True, status=StringIO(), warning=StringIO()))


def _row_classes(html, name: str) -> list[str]:
    return [d["data-kx-fix"] for d in soup(html).select_one(f"tr#kx-{name}").select("small.kx-fx")]


def test_build_is_silent(html):
    assert warnings(html) == "" and html.statuscode == 0


def test_the_details_show_the_class_of_the_cause_id_not_of_the_words(html):
    assert _row_classes(html, "mutates") == ["constant-mutation"]
    assert _row_classes(html, "sparse") == ["sparse-tensor"]  # a dynamic result's cause
    assert _row_classes(html, "older") == ["data-dependent-guard"]  # no cause: its words, as before


def test_the_reason_index_counts_the_class_of_the_cause_id(html):
    index = soup(html).select_one(".kx-rw:not([hidden]) table.kx-rs")
    same_words = [tr for tr in index.select("tbody > tr") if tr.select_one(".kx-rt").get_text() == BRANCH]
    # the same words are two entries: one grouped by the cause record (its id's class), one by the older
    # record's words (the class they read as), each with its own class
    assert sorted([p["data-kx-fix"] for p in tr.select("p.kx-rc")] for tr in same_words) == [
        ["constant-mutation"], ["data-dependent-guard"]]


def test_the_worklist_gives_each_line_the_class_of_its_cause_id(html):
    rows = {tr.select("td")[1].get_text(" ", strip=True): tr.select("td")[5].get_text()
            for tr in soup(html).select("table.kexport-worklist tbody tr")}
    assert rows["lib/m.py:3"].startswith("a constant mutated in place")
    assert rows["lib/s.py:4"].startswith("a sparse tensor the path cannot take")
    assert rows["lib/o.py:5"].startswith("a data-dependent guard")
