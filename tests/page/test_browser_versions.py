"""A page across torch versions in headless Chromium (tests/page/roots/test-versions, built once).

The torch-version selector swaps each differing cell's status in from its strip, hides the rows the chosen
version lacks and recounts the cards; the "changed between torch versions" filter; both in the URL and
back; the strip opens on each version's detail. Expected figures come from the scenario's snapshots
(fixtures/versions_scenario.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import IN_CHROMIUM, build_html, choose, click, opened, query_of, wait_for, wait_until

pytestmark = IN_CHROMIUM

ROOT = Path(__file__).parent / "roots" / "test-versions"
EVERY_VERSION = ["kx-color-hsv-to-rgb", "kx-color-rgb-to-gray", "kx-geometry-affine-random",
                 "kx-geometry-project-points", "kx-geometry-warp-affine"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("versions-site") / "html"
    assert build_html(ROOT, out) == ""
    return out


@pytest.fixture
def page(driver, base_url):
    with opened(driver, base_url + "index.html") as d:
        yield d


def shown(driver) -> tuple[list[str], str, str, str]:
    """(visible rows, status line, the cards' row count, the cards' ONNX count)."""
    return driver.execute_script("""
        const card = k => document.querySelector('.kexport-cards .kexport-count--' + k).textContent;
        return [[...document.querySelectorAll('table.kx-t tbody tr')].filter(tr => !tr.hidden).map(tr => tr.id),
                document.querySelector('.kx-count').textContent, card('rows'), card('onnx-cpu')];""")


def cell(driver, row: str, column: int) -> str:
    return driver.execute_script("return document.getElementById(arguments[0]).cells[arguments[1]]"
                                 ".querySelector('.kx-cur').textContent", row, column)


def test_newest_version_first_and_the_rows_it_lacks_hidden(page):
    rows, status, count, onnx = shown(page)
    assert rows == EVERY_VERSION + ["kx-filters-blur"]  # median is not in 2.15.0
    assert (status, count, onnx) == ("6 configurations", "6", "6 / 6")
    assert cell(page, "kx-geometry-warp-affine", 3) == "no"


def test_choosing_a_version_swaps_cells_rows_and_figures_and_is_kept_in_the_url(page, driver):
    choose(page, "version", "2.11.0")
    rows, status, count, onnx = shown(page)
    assert rows == EVERY_VERSION + ["kx-filters-median"]  # blur is new in 2.13.0
    assert (status, count, onnx) == ("6 configurations", "6", "4 / 6")  # hsv_to_rgb and median fail ONNX
    assert cell(page, "kx-color-hsv-to-rgb", 1) == "no" and cell(page, "kx-geometry-warp-affine", 3) == "yes"
    assert page.execute_script("return [...document.querySelectorAll('.kx-rw')].filter(d => !d.hidden)"
                               ".map(d => d.dataset.kv)") == ["2.11.0"]  # that version's reason index
    url = wait_for(page, "return location.search.includes('kx-v=2.11.0') && location.href")

    choose(page, "filter", "versions")
    assert shown(page)[0] == ["kx-color-hsv-to-rgb", "kx-geometry-affine-random", "kx-geometry-project-points",
                              "kx-geometry-warp-affine", "kx-filters-median"]
    url = wait_for(page, "return location.search.includes('kx-f=versions') && location.href")
    before = shown(page)
    driver.get("about:blank")
    driver.get(url)
    assert driver.execute_script("return document.querySelector('select[data-kx=version]').value") == "2.11.0"
    assert shown(driver) == before and cell(driver, "kx-color-hsv-to-rgb", 1) == "no"

    choose(driver, "filter", "")
    choose(driver, "version", "2.15.0")  # the newest again: nothing in the URL
    wait_until(driver, lambda d: "kx-" not in query_of(d), what="the state to leave the URL")
    assert cell(driver, "kx-color-hsv-to-rgb", 1) == "yes" and shown(driver)[1] == "6 configurations"


def test_the_strip_opens_on_each_versions_detail(page):
    strip = page.find_element("css selector", "#kx-geometry-warp-affine details.kx-vs")
    click(page, strip.find_element("css selector", "summary"))
    items = [li.text for li in strip.find_elements("css selector", "li")]
    assert items[0] == "torch 2.11.0: yes" and items[-1].startswith("torch 2.15.0: no — triton: no kernel")
