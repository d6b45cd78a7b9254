"""The speed filters, the order by speed and the speed picture's fit, driven in headless Chromium on
tests/page/roots/test-speed (built with Sphinx; fixtures/speed_scenario.py): "torch.compile faster/slower than
eager" keep the rows whose compile figure says so, in the URL as the other filters; the order by a column's
speed-up is reached and changed with the keyboard, puts rows without a figure last and comes back from the URL;
at 400 px each SVG fits its container and the page does not scroll sideways."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys

from browser_support import IN_CHROMIUM, build_html, choose, opened, visible_rows, wait_for
from page_support import copy_root

pytestmark = IN_CHROMIUM

SPEEDLIB_ROWS = ["kx-broken", "kx-fuse", "kx-mixed", "kx-plain", "kx-tiny", "kx-wide"]  # listed by name


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = copy_root("speed", tmp_path_factory.mktemp("speed-root"))
    out = src.parent / "html"
    assert build_html(src, out) == ""
    return out


def _order(driver) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll('table.kx-t')[0].tBodies[0].rows)"
                                 ".map(tr => tr.id)")


def test_the_faster_and_slower_filters_keep_the_rows_whose_figure_says_so(driver, base_url):
    with opened(driver, base_url + "index.html") as page:
        choose(page, "filter", "faster-compile")
        assert sorted(visible_rows(page)) == ["kx-broken", "kx-fuse", "kx-hostile", "kx-wide"]
        assert page.execute_script("return document.querySelector('.kx-count').textContent") == \
            "Showing 4 of 7 configurations"
        choose(page, "filter", "slower-compile")
        assert visible_rows(page) == ["kx-tiny"]
        choose(page, "filter", "faster-export")
        assert visible_rows(page) == ["kx-mixed"]
        choose(page, "filter", "slower-onnx")
        assert visible_rows(page) == ["kx-tiny"]
        wait_for(page, "return location.search.includes('kx-f=slower-onnx')")
    # the filter comes back from the URL
    with opened(driver, base_url + "index.html?kx-f=faster-onnx") as page:
        assert visible_rows(page) == ["kx-fuse"]


def test_the_order_by_speed_is_keyboard_driven_and_puts_rows_without_a_figure_last(driver, base_url):
    with opened(driver, base_url + "index.html") as page:
        assert _order(page) == SPEEDLIB_ROWS
        sort = page.find_element("css selector", ".kexport-controls select[data-kx=sort]")
        # the keyboard reaches it from the filter before it (Tab) and changes it (arrow keys)
        page.find_element("css selector", ".kexport-controls select[data-kx=filter]").click()
        page.switch_to.active_element.send_keys(Keys.ESCAPE)
        page.switch_to.active_element.send_keys(Keys.TAB)
        assert page.switch_to.active_element == sort
        for _ in range(3):  # "as listed" -> ONNX -> torch.export -> torch.compile
            sort.send_keys(Keys.ARROW_DOWN)
        wait_for(page, "return document.querySelector('select[data-kx=sort]').value === 'compile-cpu'")
        # ratios 5, 3.1, 1.8, 0.975, 0.45; "plain" has no figure
        wait_for(page, "return document.querySelector('table.kx-t').tBodies[0].rows[0].id === 'kx-broken'")
        assert _order(page) == ["kx-broken", "kx-fuse", "kx-wide", "kx-mixed", "kx-tiny", "kx-plain"]
        choose(page, "sort", "onnx-cpu")  # 2, 1.025, 0.6; the rest keep their order, last
        assert _order(page) == ["kx-fuse", "kx-mixed", "kx-tiny", "kx-broken", "kx-plain", "kx-wide"]
        choose(page, "filter", "faster-compile")  # a filter keeps the order
        assert visible_rows(page) == ["kx-fuse", "kx-broken", "kx-wide", "kx-hostile"]
        wait_for(page, "return location.search.includes('kx-sort=onnx-cpu')")
        choose(page, "sort", "")
        assert _order(page) == SPEEDLIB_ROWS
    with opened(driver, base_url + "index.html?kx-sort=compile-cpu") as page:
        assert _order(page)[0] == "kx-broken" and _order(page)[-1] == "kx-plain"


def test_at_400_px_the_picture_fits_its_container(driver, base_url):
    with opened(driver, base_url + "index.html", width=400) as page:
        boxes = page.execute_script(
            "return Array.from(document.querySelectorAll('svg.kx-spic')).map(s => {"
            "  const b = s.getBoundingClientRect(), c = s.parentElement.getBoundingClientRect();"
            "  return [b.left - c.left, c.right - b.right, b.width, b.height]; })")
        assert len(boxes) == 2
        for left, right, width, height in boxes:
            assert left >= -0.5 and right >= -0.5 and 250 < width <= 400 and height > 60
        assert page.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        # every text of the picture lies inside its box (labels and side words not cut off)
        assert page.execute_script(
            "return Array.from(document.querySelectorAll('svg.kx-spic')).every(s => {"
            "  const b = s.getBoundingClientRect();"
            "  return Array.from(s.querySelectorAll('text')).every(t => { const r = t.getBoundingClientRect();"
            "    return r.left >= b.left - 0.5 && r.right <= b.right + 0.5; }); })")


def test_a_row_s_speed_figures_are_read_in_its_details_and_not_searched(driver, base_url):
    """The figures in full, once per row (no tooltip to hover): shown, but not words a search finds, as
    when they were the cells' tooltips; the row's own words still are."""
    with opened(driver, base_url + "index.html") as page:
        words = page.find_element("css selector", "tr#kx-fuse small.kx-spr").text
        assert words.startswith("Speed at the case's inputs") and "thread" in words
        box = page.find_element("css selector", ".kexport-controls input[type=search]")
        box.send_keys("thread")
        wait_for(page, "return document.querySelector('.kx-count').textContent.startsWith('No configuration matches')")
        assert visible_rows(page) == []
        box.clear()
        box.send_keys("fuse")
        wait_for(page, "return document.querySelector('.kx-count').textContent.startsWith('Showing 1 ')")
        assert visible_rows(page) == ["kx-fuse"]
