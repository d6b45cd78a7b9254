"""The "beyond the reference" features driven in headless Chromium.

tests/page/roots/test-features (two devices, ``:compare:`` against an older
snapshot, calls recorded, API badges on) is built once, served on
127.0.0.1 and driven with Selenium: the reason index's links and filter,
each row's reason back to its entry, the changed-rows filters, the
"Reproduce" box's copy button, the download links and the API badges.
Expected rows come from the page model in Python.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser_support import IN_CHROMIUM, build_html, chromium, click, fetch_texts, opened, visible_rows, \
    wait_for
from sphinx_kexport.page.model.comparison import Comparison, load_comparison
from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.page.model.reason_groups import build_index
from sphinx_kexport.snapshot.repro import fill_template, repro_templates
from sphinx_kexport.snapshot import build, normalise, read_json

pytestmark = IN_CHROMIUM

ROOT = Path(__file__).parent / "roots" / "test-features"
SNAPSHOT = ROOT / "_data" / "new.json"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("features-site") / "html"
    assert build_html(ROOT, out) == ""
    return out


@pytest.fixture(scope="module")
def model():
    data, _ = normalise(read_json(SNAPSHOT))
    return build_model(build(data, "new.json"), package_order=["featurelib.color", "featurelib.geometry"])


@pytest.fixture(scope="module")
def comparison(model):
    data, _ = normalise(read_json(SNAPSHOT))
    return Comparison.of((load_comparison(str(ROOT / "_data" / "old.json"), "old.json"), "old.json"), data, model)


@pytest.fixture
def page(driver, base_url):
    with opened(driver, base_url + "index.html") as d:
        yield d


# --------------------------------------------------------------------------
# reason index


def test_reason_entry_lists_its_rows_and_the_links_land_on_them(page, model):
    top = build_index(model)[0]
    entry = page.find_element("id", top.id)
    click(page, entry.find_element("css selector", "summary"))
    links = entry.find_elements("css selector", "p.kx-rr a")
    assert [a.get_attribute("hash")[1:] for a in links] == top.rows
    click(page, links[1])
    assert page.execute_script("return location.hash") == "#" + top.rows[1]
    assert top.rows[1] in visible_rows(page)


def test_show_only_these_rows_filters_and_is_kept_in_the_url(page, model):
    total = len(list(model.rows))
    index = build_index(model)
    top = index[0]
    button = page.find_element("css selector", f"#{top.id} button.kx-rf")
    assert button.is_displayed()  # the script shows it
    click(page, button)
    assert sorted(visible_rows(page)) == sorted(top.rows)
    status = page.find_element("css selector", ".kexport-controls [aria-live]").text
    assert status == f"Showing {len(top.rows)} of {total} configurations"
    wait_for(page, f"return location.search.includes('kx-reason={top.id}')")
    # a shared link opens on the same view
    page.get(page.current_url)
    assert sorted(visible_rows(page)) == sorted(top.rows)
    # Escape clears it
    page.find_element("css selector", "body").send_keys("\ue00c")
    assert len(visible_rows(page)) == total


def test_reason_filter_combines_with_the_search(page, model):
    top = build_index(model)[0]
    click(page, page.find_element("css selector", f"#{top.id} button.kx-rf"))
    box = page.find_element("css selector", ".kexport-controls input[type=search]")
    box.send_keys("solve")
    assert visible_rows(page) == ["kx-geometry-solve"]


def test_each_row_reason_links_back_to_its_entry(page, model):
    top = build_index(model)[0]
    link = page.find_element("css selector", f"tr#kx-geometry-solve a[href='#{top.id}']")
    assert link.text == "no ONNX lowering for torch.linalg.solve"
    click(page, link)
    assert page.execute_script("return location.hash") == "#" + top.id
    top_and_height = page.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return [r.top, window.innerHeight];", top.id)
    assert -1 < top_and_height[0] < top_and_height[1], top_and_height  # scrolled to, within a subpixel


# --------------------------------------------------------------------------
# what changed


@pytest.mark.parametrize("option, kinds", [("regressed", {"regressed"}), ("fixed", {"fixed"}),
                                           ("changed", {"regressed", "fixed", "changed"})])
def test_changed_rows_filters(page, model, comparison, option, kinds):
    expected = sorted(row.id for row in model.rows
                      if any(c["kind"] in kinds for c in comparison.by_case.get(row.case.name, ())))
    select = page.find_element("css selector", ".kexport-controls select[data-kx=filter]")
    page.execute_script("arguments[0].value = arguments[1];"
                        "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", select, option)
    assert sorted(visible_rows(page)) == expected
    assert expected  # the scenario has some of each


def test_changed_cells_show_a_marker_in_words(page):
    marker = page.find_element("css selector", "tr#kx-color-rgb-to-gray .kx-ch")
    assert marker.text == "▼ regressed" and marker.is_displayed()


# --------------------------------------------------------------------------
# reproduce


def test_reproduce_box_offers_the_exact_code_and_copies_it(page, base_url, model):
    page.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": base_url.rstrip("/"), "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    row = next(r for r in model.rows if r.case.name == "color.rgb_to_gray")
    opsets = {d: int(model.snapshot.environments[d]["opset"]) for d in model.devices}
    expected = fill_template(repro_templates(model.columns, opsets)["compile-cuda"], row.case.call, row.case.name,
                             row.case.check)
    box = page.find_element("css selector", "tr#kx-color-rgb-to-gray details")
    click(page, box.find_element("css selector", "summary"))
    snippets = wait_for(page, "return document.querySelectorAll('tr#kx-color-rgb-to-gray details pre').length "
                              "> 1 && Array.from(document.querySelectorAll('tr#kx-color-rgb-to-gray details pre'))"
                              ".filter(p => !p.hidden).map(p => p.textContent)")
    assert snippets == [expected]  # one failing cell: torch.compile on CUDA
    compile(expected, "repro", "exec")  # real Python
    assert expected.splitlines().count("import torch") == 1  # the call's own import is not repeated
    button = box.find_element("css selector", "button")
    click(page, button)
    wait_for(page, "return arguments[0].textContent === 'Copied'".replace("arguments[0]",
             "document.querySelector('tr#kx-color-rgb-to-gray details button')"))
    copied = page.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.readText().then(done, e => done('ERROR ' + e));")
    assert copied == expected


def test_untrusted_call_and_name_stay_text(page):
    box = page.find_element("css selector", "tr#kx-geometry-warp-affine-fill details")
    click(page, box.find_element("css selector", "summary"))
    text = wait_for(page, "return Array.from(document.querySelectorAll('tr#kx-geometry-warp-affine-fill details pre'))"
                          ".filter(p => !p.hidden).map(p => p.textContent).join('\\n')")
    assert "</script><script>alert(2)</script>" in text
    assert page.execute_script("return document.querySelectorAll('tr#kx-geometry-warp-affine-fill script').length") == 0


# --------------------------------------------------------------------------
# downloads and badges


def test_download_links_fetch_the_real_files(page):
    hrefs = [a.get_attribute("href") for a in page.find_elements("css selector", "p.kexport-downloads a")]
    assert len(hrefs) == 2
    (json_status, json_text), (csv_status, csv_text) = fetch_texts(page, hrefs)
    assert json_status == 200 and json.loads(json_text) == json.loads(SNAPSHOT.read_text())
    assert json_text == SNAPSHOT.read_text(encoding="utf-8")
    assert csv_status == 200 and csv_text.splitlines()[0].startswith("name,package,section,operator")
    assert len(csv_text.splitlines()) == 1 + 7 * 2 * 3


def test_api_badge_leads_to_the_row(driver, base_url):
    driver.get(base_url + "api.html")
    badge = driver.find_element("css selector", "#featurelib\\.geometry\\.solve + dd .kexport-badge")
    assert badge.is_displayed() and "ONNX" in badge.text
    click(driver, badge)
    wait_for(driver, "return location.pathname.endsWith('/index.html') && location.hash === '#kx-geometry-solve'")
    assert "kx-geometry-solve" in visible_rows(driver)


def test_without_javascript_the_index_still_links_both_ways(base_url, model):
    top = build_index(model)[0]
    with chromium(javascript=False) as driver:
        driver.get(base_url + "index.html")
        entry = driver.find_element("id", top.id)
        assert not entry.find_element("css selector", "button.kx-rf").is_displayed()
        click(driver, entry.find_element("css selector", "summary"))
        links = entry.find_elements("css selector", "p.kx-rr a")
        assert all(a.is_displayed() for a in links)
        click(driver, links[0])
        assert driver.execute_script("return location.hash") == "#" + top.rows[0]
        back = driver.find_element("css selector", f"tr#{top.rows[0]} a[href='#{top.id}']")
        click(driver, back)
        assert driver.execute_script("return location.hash") == "#" + top.id
