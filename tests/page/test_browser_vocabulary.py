"""The browser script filters and counts by what the page says of the vocabulary, driven in headless Chromium
on tests/page/roots/test-vocabulary (a case per status and per dynamic status): each filter that names a status
shows exactly the rows the records say it should, and the figures it recounts agree with them."""

from __future__ import annotations

import pytest

from browser_support import IN_CHROMIUM, build_html, choose, opened, visible_rows
from page_support import ROOTS, copy_root

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.snapshot import load_snapshot
from sphinx_kexport.snapshot.vocabulary import DYNAMIC_STATIC, FAIL, NOT_APPLICABLE, OK_BREAKS, PATHS, TIMEOUT

pytestmark = IN_CHROMIUM


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = copy_root("vocabulary", tmp_path_factory.mktemp("vocabulary-root"))
    out = src.parent / "html"
    assert build_html(src, out) == ""
    return out


@pytest.fixture(scope="module")
def rows():
    return list(build_model(load_snapshot(ROOTS / "test-vocabulary" / "_data" / "export_support.json")).rows)


def _ids(rows, keep) -> list[str]:
    return sorted(row.id for row in rows if keep(row))


def test_each_filter_that_names_a_status_shows_the_rows_its_records_say(driver, base_url, rows):
    expected = {
        FAIL: _ids(rows, lambda r: r.failing),  # any failing status (fail, mismatch)
        f"{FAIL}-{PATHS[-1]}": _ids(rows, lambda r: any(c.result.failing for c in r.cells if c.path == PATHS[-1])),
        TIMEOUT: _ids(rows, lambda r: any(c.result.status == TIMEOUT for c in r.cells)),
        DYNAMIC_STATIC: _ids(rows, lambda r: any(c.result.dynamic and c.result.dynamic.status == DYNAMIC_STATIC
                                                 for c in r.cells)),
        "breaks": _ids(rows, lambda r: any(c.result.status == OK_BREAKS for c in r.cells)),
        "pass": _ids(rows, lambda r: r.passes_all),  # n/a cells are no bar; a timeout is not known to pass
    }
    assert all(expected.values()) and any(c.result.status == NOT_APPLICABLE for r in rows for c in r.cells)
    with opened(driver, base_url + "index.html") as page:
        for value, ids in expected.items():
            choose(page, "filter", value)
            assert sorted(visible_rows(page)) == ids, value


def _counts(driver) -> dict[str, str]:
    return driver.execute_script(
        "const found = {}; for (const el of document.querySelectorAll('.kexport-count')) {"
        "  const key = [...el.classList].find(c => c.startsWith('kexport-count--')).slice(15);"
        "  found[key] = el.textContent; } return found;")


def test_the_script_recounts_every_figure_as_the_page_model_counted_it(driver, base_url):
    """A search every row matches makes the script recount each figure from the rows' codes, which it reads
    by the page's data: every status and dynamic status counted (or not) as the server counted it."""
    with opened(driver, base_url + "index.html") as page:
        server = _counts(page)
        assert server[DYNAMIC_STATIC] == "1" and server["pass-all"] == "9"
        page.execute_script("const i = document.querySelector('.kexport-controls input[type=search]');"
                            "i.value = 'vocablib'; i.dispatchEvent(new Event('input'));")
        assert len(visible_rows(page)) == int(server["rows"])
        assert page.execute_script("return document.querySelector('.kexport').classList.contains('kx-filtered')")
        assert _counts(page) == server
        choose(page, "filter", TIMEOUT)  # the timed-out cell is not counted, and its row does not pass
        figures = _counts(page)
        assert (figures["compile-cpu"], figures["pass-all"], figures["rows"]) == ("—", "0", "1")
