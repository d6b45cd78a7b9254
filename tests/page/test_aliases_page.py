"""One object under several public names on the page (tests/page/roots/test-aliases, a real Sphinx build parsed
with lxml): the row links to the name the project's API docs document, lists the object's other names beneath
("also:", as text), and the figures count the object once; a row without aliases renders as before."""

from __future__ import annotations

import pytest
from page_support import ROOTS, counts, soup, warnings

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.snapshot import load_snapshot

SNAPSHOT = ROOTS / "test-aliases" / "_data" / "export_support.json"


@pytest.fixture(scope="module")
def page(build_once):
    app = build_once("aliases", "html")
    assert warnings(app) == ""
    return soup(app)


def _operator_cells(page) -> dict[str, object]:
    return {tr["id"]: tr.find("td") for tr in page.select("table.kx-t tbody tr")}


def test_a_row_links_to_the_documented_name_and_lists_the_others(page):
    cells = _operator_cells(page)
    for row in ("kx-smooth", "kx-smooth-doc"):  # the cases call it aliaslib.filters.smooth; the docs say aliaslib.smooth
        assert cells[row].find("a")["href"] == "api.html#aliaslib.smooth"
        assert cells[row].select_one("small.kx-aka").get_text() == "also: aliaslib.filters.smooth"
    # documented under none of its names: no link, its other name beneath
    assert cells["kx-gelu-tanh"].find("a") is None
    assert cells["kx-gelu-tanh"].select_one("small.kx-aka").get_text() == "also: aliaslib.tanh_gelu"
    assert cells["kx-tanh-gelu-doc"].select_one("small.kx-aka").get_text() == "also: aliaslib.gelu_tanh"


def test_the_text_builder_lists_the_other_names_too(build_once):
    app = build_once("aliases", "text")
    assert warnings(app) == ""
    lines = (app.outdir / "index.txt").read_text(encoding="utf-8").splitlines()
    smooth = next(i for i, line in enumerate(lines) if line.startswith("smooth "))
    assert lines[smooth + 1].strip() == "also: aliaslib.filters.smooth"
    blur = next(i for i, line in enumerate(lines) if line.startswith("blur "))
    assert not lines[blur + 1].strip().startswith("also:")


def test_a_row_without_aliases_is_rendered_as_before(page):
    cell = _operator_cells(page)["kx-blur"]
    assert cell.select("small.kx-aka") == []
    assert str(cell) == '<td><a class="reference internal" href="api.html#aliaslib.blur"><code>blur</code></a></td>'


def test_an_alias_is_shown_as_text(page):
    cell = _operator_cells(page)["kx-odd"]
    assert cell.select_one("small.kx-aka code").get_text() == "aliaslib.<b>odd</b>"
    assert cell.find("b") is None


def test_the_figures_count_each_object_once(page):
    model = build_model(load_snapshot(SNAPSHOT))
    by_name = {(row.case.package, row.case.operator) for row in model.rows}
    assert (model.counts.rows, len(by_name), model.counts.operators) == (6, 5, 4)  # smooth twice; gelu_tanh = tanh_gelu
    assert counts(page)["operators"] == "4"
    # the script's bookkeeping (operators numbered from 0 as met): the second smooth row is the previous row's
    # operator, tanh_gelu[doc] (the last row) is gelu_tanh's (the second)
    marks = [(tr["id"], tr.get("data-o")) for tr in page.select("table.kx-t tbody tr")]
    assert marks == [("kx-blur", None), ("kx-gelu-tanh", None), ("kx-odd", None), ("kx-smooth", None),
                     ("kx-smooth-doc", "="), ("kx-tanh-gelu-doc", "1")]
