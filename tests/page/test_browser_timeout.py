"""The "ran past the time limit" filter, driven in headless Chromium: it shows exactly the rows with a
timed-out cell, and "any failure" does not count them (tests/page/roots/test-basic with one compile cell
that ran past the probe's time limit)."""

from __future__ import annotations

import pytest

from browser_support import IN_CHROMIUM, build_html, opened, visible_rows
from page_support import basic_root_with_a_timeout

pytestmark = IN_CHROMIUM


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src, slow = basic_root_with_a_timeout(tmp_path_factory.mktemp("timeout-root"))
    out = src.parent / "html"
    assert build_html(src, out) == ""
    return {"out": out, "operator": slow["operator"] or slow["name"]}


@pytest.fixture(scope="module")
def base_url(site):
    from browser_support import serve

    with serve(site["out"]) as url:
        yield url


def choose_filter(driver, value: str) -> None:
    driver.execute_script(
        "const s = document.querySelector('.kexport-controls select[data-kx=filter]');"
        "s.value = arguments[0]; s.dispatchEvent(new Event('change'));", value)


def row_text(driver, row_id: str) -> str:
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", row_id)


def test_the_timeout_filter_shows_only_the_row_that_ran_past_the_limit(driver, base_url, site):
    with opened(driver, base_url + "index.html") as page:
        everything = visible_rows(page)
        choose_filter(page, "timeout")
        shown = visible_rows(page)
        assert len(shown) == 1 and len(everything) > 1
        assert site["operator"] in row_text(page, shown[0]) and "timed out" in row_text(page, shown[0])
        choose_filter(page, "fail")  # a timeout is not a failure
        assert shown[0] not in visible_rows(page)
        choose_filter(page, "")
        assert visible_rows(page) == everything
