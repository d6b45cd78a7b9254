"""Every status and every dynamic-batch status is displayed as its vocabulary record says.

A real build of tests/page/roots/test-vocabulary (its snapshot holds one case per status and
per dynamic status, written from the records by tests/page/fixtures/vocabulary_scenario.py),
parsed: the legend, the cells, the marks, the filters and the data the browser script reads.
And, without a build, each display function of the page model answers for every status, so a
status the vocabulary gains cannot be missing from one of them.
"""

from __future__ import annotations

import pytest
from bs4 import Tag
from page_support import ROOTS, soup, warnings

from sphinx_kexport.page.model import dynamic_batch
from sphinx_kexport.page.model.page_model import Cell, build_model
from sphinx_kexport.page.model.words import status_css, status_label, status_meaning, status_text
from sphinx_kexport.page.writers.script_data import PLAIN
from sphinx_kexport.snapshot import Dynamic, Result, load_snapshot
from sphinx_kexport.snapshot.vocabulary import (COMPILE, DYNAMIC_ANSWERS, DYNAMIC_STATIC, DYNAMIC_STATUSES, FAIL,
                                                FAILING, FAILING_KIND, OK, STATUSES, SUPPORTED, SUPPORTED_KIND,
                                                TIMEOUT, page_codes)

SNAPSHOT = ROOTS / "test-vocabulary" / "_data" / "export_support.json"


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("vocabulary", "html")


@pytest.fixture(scope="module")
def page(html):
    return soup(html)


def _slug(word: str) -> str:  # as vocabulary_scenario names its cases
    return "".join(c if c.isalnum() else "_" for c in word)


def _row_id(prefix: str, word: str) -> str:
    return "kx-" + f"{prefix}_{_slug(word)}".replace("_", "-")


def test_the_snapshot_holds_every_status_and_every_dynamic_status():
    """Else rerun tests/page/make_fixtures.py: the scenario writes one case per record."""
    snapshot = load_snapshot(SNAPSHOT)
    results = [r for case in snapshot.cases for r in case.results["cpu"].values()]
    assert {r.status for r in results} == set(STATUSES)
    assert {r.dynamic.status for r in results if r.dynamic} == set(DYNAMIC_STATUSES)


def test_build_is_silent(html):
    assert warnings(html) == ""


def test_the_legend_says_each_status_with_its_label_meaning_and_class(page):
    rows = page.select("table.kexport-legend tr.kexport-legend-row")
    pills = [(row.find_all("td")[0].select_one(".kx-status"), row.find_all("td")[1].get_text(" ", strip=True))
             for row in rows]
    shown = [(pill.get_text(), pill["class"], meaning) for pill, meaning in pills if pill is not None]
    assert shown == [(s.label, ["kx-status", f"kx-status--{s.css}"], s.meaning) for s in STATUSES]


def test_the_legend_says_each_dynamic_mark_that_answers(page):
    rows = page.select("table.kexport-legend tr.kexport-legend-row")
    marks = [(row.find_all("td")[0].select_one(".kx-batch"), row.find_all("td")[1].get_text(" ", strip=True))
             for row in rows]
    shown = [(mark.get_text(), meaning) for mark, meaning in marks if mark is not None]
    assert shown == [(d.legend, dynamic_batch.meaning(d)) for d in DYNAMIC_ANSWERS]
    # the traced-batch-only mark's sentence is the record's, with what the page adds
    assert dynamic_batch.meaning(DYNAMIC_STATIC).startswith(DYNAMIC_STATIC.meaning + " (the Details column")


def test_each_cell_carries_its_status_code_and_text(page):
    cases = {case.name: case for case in load_snapshot(SNAPSHOT).cases}
    for status in STATUSES:
        text = status_text(cases[f"status_{_slug(status)}"].result("cpu", COMPILE))  # "yes, 2 breaks"
        tr = page.select_one(f"tr#{_row_id('status', status)}")
        assert tr is not None, status
        codes = tr.get("data-s", OK.code * 3)
        assert codes[-1] == status.code  # the torch.compile column (the last one on one device)
        cell = tr.find_all("td")[3].contents[0]
        if status == PLAIN:  # the plain word, no pill
            assert not isinstance(cell, Tag) and cell.strip() == text == status.label
        else:
            assert (cell.name, cell.get_text()) == (f"kx-{status.code}", text), status


def test_each_dynamic_status_that_answers_is_a_mark_with_its_code(page):
    for dynamic in DYNAMIC_STATUSES:
        tr = page.select_one(f"tr#{_row_id('dynamic', dynamic)}")
        assert tr is not None, dynamic
        marks = tr.select(", ".join(f"kx-y{d.code}" for d in DYNAMIC_ANSWERS))
        if dynamic.answers:
            assert tr["data-y"] == dynamic.code * 3
            assert {m.name for m in marks} == {f"kx-y{dynamic.code}"}
        else:  # a timed-out pass, or no batch dimension: no mark
            assert tr.get("data-y") is None and not marks


def test_the_script_reads_exactly_the_vocabulary_off_the_page(page):
    root = page.select_one("div.kexport")
    assert set(root["data-supported"]) == {s.code for s in SUPPORTED}
    assert set(root["data-failing"]) == {s.code for s in FAILING}
    codes = page_codes()
    assert (root["data-supported"], root["data-failing"]) == (codes[SUPPORTED_KIND], codes[FAILING_KIND])
    assert root["data-plain"] == OK.code and root["data-timed-out"] == TIMEOUT.code
    assert set(root["data-batch-checked"]) == {d.code for d in DYNAMIC_ANSWERS}
    # the filters that name a status: the template's values are the words the script compares with
    values = [o["value"] for o in page.select("select[data-kx=filter] option")]
    assert root["data-fail-word"] == FAIL and FAIL in values and f"{FAIL}-{COMPILE}" in values
    assert root["data-timeout-word"] == TIMEOUT and TIMEOUT in values
    assert root["data-static-word"] == DYNAMIC_STATIC and DYNAMIC_STATIC in values


@pytest.mark.parametrize("status", STATUSES)
def test_every_display_of_the_page_model_answers_for_every_status(status):
    result = Result(status, graph_breaks=2)
    assert status_text(result) and status_label(status) == status.label
    assert status_css(status) == status.css and status_meaning(status) == status.meaning
    assert Cell("cpu", COMPILE, result).css == status.css
    assert Cell("cpu", COMPILE, Result(status)).text == status.label


@pytest.mark.parametrize("dynamic", DYNAMIC_STATUSES)
def test_every_display_of_a_dynamic_status_answers_for_it(dynamic):
    result = Result(OK, dynamic=Dynamic(dynamic, "why", traced_batch=2, run_batch=3))
    if dynamic.answers:
        assert dynamic_batch.legend(dynamic) and dynamic_batch.meaning(dynamic)
        assert dynamic_batch.code(result) == dynamic.code and dynamic_batch.mark(result)
    else:
        assert dynamic_batch.code(result) == dynamic_batch.NO_MARK_CODE and dynamic_batch.mark(result) == ""


def test_the_model_of_the_scenario_uses_every_status(html):
    model = build_model(load_snapshot(SNAPSHOT))
    assert model.statuses_used == list(STATUSES) and model.dynamic_used == list(DYNAMIC_ANSWERS)
