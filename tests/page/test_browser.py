"""The export-support page driven in headless Chromium.

tests/page/roots/test-browser is built with sphinx-build (once per theme), served
on 127.0.0.1, and driven with Selenium: search, filters (incl. changes since
the compared snapshot and the reason index's filter), counts that follow
them, URL state, deep links, keyboard, "Reproduce" snippets, two pages in
one document, no-JavaScript rendering, and the pills' colours and sticky
controls in four themes, light and dark. Expected rows and counts come from
the page model in Python, so the script and the server must agree.
"""

from __future__ import annotations


import pytest

from browser_support import BROWSER_ROOT, IN_CHROMIUM, THEMES, choose, chromium, click, console_errors, \
    contrast, opened, parse_rgb, query_of, relative_luminance, settled, wait_for, wait_until
from sphinx_kexport.snapshot.diff import compare
from sphinx_kexport.page.model.page_model import _counts, build_model
from sphinx_kexport.snapshot.repro import fill_template, repro_templates
from sphinx_kexport.snapshot import load_snapshot, read_json

pytestmark = IN_CHROMIUM

ROOT = BROWSER_ROOT
TOTAL = 29


# --------------------------------------------------------------------------
# fixtures: one build per theme, one server, one browser per module


@pytest.fixture(scope="module")
def site(theme_sites):
    """Builds for every theme under one folder (shared with the other browser modules);
    alabaster's must be warning-free."""
    out, warnings = theme_sites
    assert warnings["alabaster"] == ""
    return out


@pytest.fixture(scope="module")
def model():
    return build_model(load_snapshot(ROOT / "_data" / "export_support.json"),
                       package_order=["mylib.color", "mylib.geometry"])


@pytest.fixture(scope="module")
def changes(model):
    """row id -> {(column key, kind)} since _data/older.json (the page's :compare:)."""
    by_name = {row.case.name: row.id for row in model.rows}
    found: dict[str, set] = {}
    for change in compare(read_json(ROOT / "_data" / "older.json"), read_json(ROOT / "_data" / "export_support.json")):
        found.setdefault(by_name[change.case], set()).add((f"{change.path}-{change.device}", change.kind))
    return found


@pytest.fixture
def page(driver, base_url):
    """The alabaster page, freshly loaded; the console must stay clean."""
    with opened(driver, base_url + "alabaster/index.html") as d:
        yield d


# --------------------------------------------------------------------------
# helpers


def visible_rows(driver) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('.kexport table.kx-t tr[id]')]"
        ".filter(tr => tr.getClientRects().length > 0).map(tr => tr.id)")


def status_text(driver) -> str:
    return driver.find_element("css selector", ".kexport-controls [aria-live]").text


def search(driver, text: str) -> None:
    box = driver.find_element("css selector", ".kexport-controls input[type=search]")
    box.clear()
    if text:
        box.send_keys(text)
    else:  # clear() fires no input event
        driver.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)


def counts_on_page(driver) -> list[tuple[str, str, str]]:
    """(scope, key, text) of every count: scope is a package slug or "" for the page."""
    return driver.execute_script("""
        return [...document.querySelectorAll('.kexport .kexport-count')].map(el => {
          const key = [...el.classList].find(c => c.startsWith('kexport-count--')).slice(15);
          const scope = el.closest('[class*="kexport-pkg--"]');
          const pkg = scope ? [...scope.classList].find(c => c.startsWith('kexport-pkg--')).slice(13) : '';
          return [pkg, key, el.textContent];
        });""")


def expected_count(counts, key: str) -> str:
    if key in counts.columns:
        return str(counts.columns[key])
    if key == "rows":
        return str(counts.rows)
    if key == "operators":
        return str(counts.operators)
    if key == "onnx-operators":
        return str(counts.onnx_operators)
    if key == "pass-all":
        return str(counts.pass_all["all"])
    if key == "static":
        return str(counts.static)
    if key == "dyn":
        return counts.batch.batch_text
    if key.startswith("dyn-"):
        return counts.columns[key[4:]].batch_text
    assert key.startswith("pass-all-"), key
    return str(counts.pass_all[key[len("pass-all-"):]])


def assert_counts_follow(driver, model, shown: list[str]) -> None:
    """Cards, summary and package leads equal the server's counts of the visible rows."""
    rows = [r for r in model.rows if r.id in set(shown)]
    columns, devices = model.columns, model.devices
    page_counts = _counts(rows, columns, devices)
    by_package = {g.slug: _counts([r for r in rows if r.case.package == g.package], columns, devices)
                  for g in model.groups}
    found = counts_on_page(driver)
    assert len(found) > 20
    for scope, key, text in found:
        counts = by_package[scope] if scope else page_counts
        assert text == expected_count(counts, key), (scope, key)


def matches(row, flt: str, device: str, changes: dict) -> bool:
    cells = [c for c in row.cells if not device or c.device == device]
    if flt in ("regressed", "fixed", "changed"):
        keys = {c.key for c in cells}
        return any(key in keys and (flt == "changed" or kind == flt) for key, kind in changes.get(row.id, ()))
    if flt == "fail":
        return any(c.result.failing for c in cells)
    if flt.startswith("fail-"):
        return any(c.result.failing for c in cells if c.path == flt[5:])
    if flt == "breaks":
        return any(c.result.status == "ok-breaks" for c in cells if c.path == "compile")
    if flt == "pass":
        probed = [c for c in cells if c.result.status != "n/a"]
        return bool(probed) and all(c.result.supported for c in probed)
    if flt == "disagree":
        return row.disagree
    if flt == "static":
        return any(c.result.supported and c.result.dynamic is not None and c.result.dynamic.static for c in cells)
    return True


# --------------------------------------------------------------------------
# behaviour


def test_enhances_the_page_once(page):
    assert page.find_element("css selector", ".kexport-controls").is_displayed()
    assert status_text(page) == f"{TOTAL} configurations"
    timings = page.execute_script("return window.kexportTimings")
    # the 50 ms budget is a median over repeats in benchmarks/bench_page.py; one sample here read 57.5 ms on a
    # loaded machine, so the test checks only that the timing is recorded for every row
    assert timings["rows"] == TOTAL and timings["init"] > 0
    # Loading the script a second time changes nothing (idempotent).
    page.execute_script("const s = document.createElement('script'); window.kxTestLoaded = false;"
                        "s.onload = () => { window.kxTestLoaded = true; };"
                        "s.src = document.querySelector('script[src*=kexport]').src; document.body.append(s);")
    wait_for(page, "return window.kxTestLoaded")  # the second copy ran
    assert len(page.find_elements("css selector", ".kexport-controls")) == 1
    search(page, "svd")
    assert status_text(page) == f"Showing 2 of {TOTAL} configurations"


def test_search_shows_matching_rows_and_counts_follow(page, model):
    search(page, "svd")
    shown = visible_rows(page)
    assert shown == ["kx-mylib-geometry-warp-perspective", "kx-mylib-geometry-solve-pnp"]
    assert status_text(page) == f"Showing 2 of {TOTAL} configurations"
    assert_counts_follow(page, model, shown)
    # Sections and tables without a visible row are hidden, headings included.
    hidden = page.execute_script(
        "return [...document.querySelectorAll('.kexport section')].filter(s => !s.getClientRects().length)"
        ".map(s => s.id)")
    assert "export-support-mylib-color" in hidden and "export-support-mylib-geometry-camera" in hidden
    assert "export-support-mylib-geometry" not in hidden and "export-support-mylib-geometry-linalg" not in hidden
    assert page.find_element("css selector", ".kexport-controls").is_displayed()

    search(page, "")
    assert len(visible_rows(page)) == TOTAL
    assert status_text(page) == f"{TOTAL} configurations"
    assert_counts_follow(page, model, [r.id for r in model.rows])
    assert not page.execute_script("return [...document.querySelectorAll('.kexport section')]"
                                   ".some(s => !s.getClientRects().length)")


@pytest.mark.parametrize("query, expected", [
    ("LINALG_SVD", ["warp-perspective", "solve-pnp"]),            # case and punctuation do not matter
    ("geometry svd", ["warp-perspective", "solve-pnp"]),           # words are ANDed, package text counts
    ("svd -pnp", ["warp-perspective"]),                             # -word excludes
    ('"aten::atan2"', ["hsv-to-rgb"]),                              # a quoted phrase, reason text
    ("camera", ["distort-points", "project-points", "unproject-points"]),  # section title
    ("a batch of 4", ["rgb-to-lab-batch"]),                         # the note
    ("antialias", ["resize-antialias"]),                            # the variant
    ("crop.py:42", ["crop-by-indices"]),                            # the source location
    ('randomaffine "random operator"', ["randomaffine-random"]),
])
def test_search_syntax(page, query, expected):
    search(page, query)
    assert [i.rsplit("mylib-", 1)[1].split("-", 1)[1] for i in visible_rows(page)] == expected


def test_every_filter_on_every_device(page, model, changes):
    filters = page.execute_script(
        "return [...document.querySelectorAll('select[data-kx=filter] option')].map(o => o.value)")
    assert filters == ["", "fail", "fail-onnx", "fail-export", "fail-compile", "breaks", "pass", "static", "disagree",
                       "regressed", "fixed", "changed"]
    for device in ("", "cpu", "cuda"):
        choose(page, "device", device)
        for flt in filters:
            choose(page, "filter", flt)
            expected = [r.id for r in model.rows if matches(r, flt, device, changes)]
            assert visible_rows(page) == expected, (flt, device)
            assert_counts_follow(page, model, expected)
    # the filters really differ on this data
    assert [r.id for r in model.rows if matches(r, "breaks", "cpu", changes)] != \
           [r.id for r in model.rows if matches(r, "breaks", "cuda", changes)]
    assert {kind for kinds in changes.values() for _, kind in kinds} == {"regressed", "fixed", "changed"}


def test_zero_results_name_their_cause(page):
    search(page, "nosuchoperator")
    assert status_text(page).startswith("No configuration matches “nosuchoperator”.")
    search(page, "")
    choose(page, "filter", "breaks")
    choose(page, "device", "cuda")
    assert status_text(page) == "No configuration in “torch.compile graph breaks on CUDA”."
    choose(page, "device", "")
    choose(page, "filter", "fail")
    search(page, "rgb_to_gray")
    assert status_text(page) == ("No configuration matches “rgb_to_gray” in “any failure or mismatch” "
                                 "(the search alone matches 1; clear the filter to see them).")
    assert visible_rows(page) == []


def test_state_round_trips_through_the_url(page, driver):
    search(page, "blur")
    choose(page, "filter", "fail-compile")
    choose(page, "device", "cpu")
    wait_until(page, lambda p: "kx-d=cpu" in p.current_url, what="kx-d=cpu in the URL")
    url = page.current_url
    assert "kx-q=blur" in url and "kx-f=fail-compile" in url and "kx-d=cpu" in url
    before = (visible_rows(page), status_text(page))
    assert before[0] == ["kx-mylib-filters-median-blur"]

    driver.get("about:blank")
    driver.get(url)
    assert driver.execute_script("return document.querySelector('.kexport-controls input').value") == "blur"
    assert driver.execute_script("return document.querySelector('select[data-kx=filter]').value") == "fail-compile"
    assert (visible_rows(driver), status_text(driver)) == before

    search(driver, "")
    choose(driver, "filter", "")
    choose(driver, "device", "")
    wait_until(driver, lambda d: "kx-" not in query_of(d), what="the cleared state to leave the URL")


def test_deep_link_targets_and_reveals_the_row(driver, base_url):
    driver.set_window_size(1280, 900)
    row_id = "kx-mylib-augmentation-mixup"
    # The filter in the URL would hide the row: the link wins and clears it.
    driver.get(base_url + f"alabaster/index.html?kx-f=breaks#{row_id}")
    state = wait_until(driver, lambda d: (lambda s: s["target"] == row_id and s["controls"] <= s["top"] and s)(
        d.execute_script("""
        const row = document.getElementById(arguments[0]);
        const r = row.getBoundingClientRect();
        const c = document.querySelector('.kexport-controls').getBoundingClientRect();
        return {target: document.querySelector(':target')?.id, top: r.top, bottom: r.bottom,
                controls: c.bottom, height: innerHeight,
                bg: getComputedStyle(row.cells[1]).backgroundColor};""", row_id)),
        what="the linked row, revealed below the controls")
    assert state["target"] == row_id
    assert state["controls"] <= state["top"] and state["bottom"] <= state["height"]  # not under the controls
    assert parse_rgb(state["bg"])[3] > 0  # highlighted
    assert len(visible_rows(driver)) == TOTAL
    assert console_errors(driver) == []


def test_keyboard_slash_focuses_search_and_escape_clears(page):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(page).send_keys("/").perform()
    active = page.execute_script("return document.activeElement.type")
    assert active == "search"
    ActionChains(page).send_keys("warp/").perform()  # inside the field "/" is just a character
    box = page.find_element("css selector", ".kexport-controls input")
    assert box.get_attribute("value") == "warp/"
    search(page, "warp")
    choose(page, "filter", "fail")
    assert visible_rows(page) == ["kx-mylib-geometry-warp-perspective"]
    box.send_keys(Keys.ESCAPE)
    assert box.get_attribute("value") == ""
    assert page.execute_script("return document.querySelector('select[data-kx=filter]').value") == ""
    assert len(visible_rows(page)) == TOTAL

    search(page, "svd")
    page.execute_script("document.activeElement.blur()")
    ActionChains(page).send_keys(Keys.ESCAPE).perform()  # Esc outside any field clears too
    assert len(visible_rows(page)) == TOTAL


def test_reason_index_filters_the_rows(page, model):
    entry = page.execute_script(
        "return [...document.querySelectorAll('tr[id^=kx-reason-]')]"
        ".find(tr => tr.querySelector('.kx-rt').textContent.startsWith('no ONNX lowering for')).id")
    button = page.find_element("css selector", f"#{entry} button.kx-rf")
    assert button.is_displayed()
    click(page, button)
    shown = visible_rows(page)
    assert shown == ["kx-mylib-color-hsv-to-rgb", "kx-mylib-geometry-warp-perspective",
                     "kx-mylib-geometry-solve-pnp"]
    assert_counts_follow(page, model, shown)
    chip = page.find_element("css selector", ".kexport-controls .kx-reason")
    assert chip.is_displayed() and "no ONNX lowering for" in chip.text
    search(page, "geometry")  # the reason and a search combine
    assert visible_rows(page) == shown[1:]
    wait_until(page, lambda p: "kx-q=geometry" in p.current_url, what="kx-q=geometry in the URL")
    url = page.current_url
    assert f"kx-reason={entry}" in url and "kx-q=geometry" in url

    page.get(url)  # the reason survives a reload
    assert visible_rows(page) == shown[1:]
    click(page, page.find_element("css selector", ".kexport-controls .kx-reason button"))
    search(page, "")
    assert len(visible_rows(page)) == TOTAL
    assert not page.find_element("css selector", ".kexport-controls .kx-reason").is_displayed()


def test_works_only_at_the_traced_batch_size_filter_url_and_reason(page, model):
    expected = [r.id for r in model.rows if matches(r, "static", "", {})]
    assert expected == ["kx-mylib-geometry-rotate", "kx-mylib-geometry-warp-affine", "kx-mylib-filters-box-blur"]
    choose(page, "filter", "static")
    assert visible_rows(page) == expected
    assert status_text(page) == f"Showing 3 of {TOTAL} configurations"
    assert_counts_follow(page, model, expected)
    # the card's dynamic-batch figures follow the filter (3 of the 3 rows' checked cells: see the fixture)
    assert page.find_element("css selector", ".kexport-cards .kexport-count--static").text == "3"
    choose(page, "device", "cuda")  # rotate's torch.export is batch-specific on CUDA too
    assert visible_rows(page) == expected
    wait_until(page, lambda p: "kx-f=static" in p.current_url and "kx-d=cuda" in p.current_url,
               what="kx-f=static and kx-d=cuda in the URL")
    page.get(page.current_url)  # the filter survives a reload
    assert visible_rows(page) == expected
    assert page.find_element("css selector", "select[data-kx=filter]").get_attribute("value") == "static"
    choose(page, "filter", "")
    choose(page, "device", "")
    assert len(visible_rows(page)) == TOTAL

    # the reason index lists why, and its button keeps the rows with that reason
    entry = page.execute_script(
        "return [...document.querySelectorAll('tr[id^=kx-reason-]')].find(tr => tr.querySelector('.kx-rt')"
        ".textContent === 'works only at the traced batch size: the batch size is specialised by a Python "
        "loop over it').id")
    row = page.find_element("id", "kx-mylib-geometry-rotate")
    link = row.find_element("css selector", f"td:last-child a[href='#{entry}']")
    assert link.text.startswith("works only at the traced batch size")
    # export on CPU and CUDA, compile on CPU: torch.compile still runs at another size, after compiling again
    assert [m.text for m in row.find_elements("css selector", "kx-ys")] == \
        ["batch 2 only", "batch 2 only", "recompiles at a new batch"]
    click(page, page.find_element("css selector", f"#{entry} button.kx-rf"))
    assert visible_rows(page) == ["kx-mylib-geometry-rotate"]
    assert_counts_follow(page, model, ["kx-mylib-geometry-rotate"])
    wait_until(page, lambda p: f"kx-reason={entry}" in p.current_url, what=f"kx-reason={entry} in the URL")


def test_reproduce_shows_the_exact_snippet_per_failing_cell(page, model):
    page.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    row = next(r for r in model.rows if r.case.operator == "hsv_to_rgb")
    box = page.find_element("css selector", f"#{row.id} details.kx-repro")
    click(page, box.find_element("css selector", "summary"))
    snippets = wait_until(page, lambda _: box.find_elements("css selector", ".kx-snippet"),  # "toggle" comes later
                          what="the Reproduce box's snippets")
    templates = repro_templates(model.columns, {"cpu": 18, "cuda": 18})
    expected = [fill_template(templates[key], row.case.call, row.case.name, row.case.check) for key in ("onnx-cpu", "onnx-cuda")]
    assert [s.find_element("css selector", "pre").get_attribute("textContent") for s in snippets] == expected
    assert [s.find_element("css selector", "div").text.split(" Copy")[0] for s in snippets] == \
        ["ONNX (CPU)", "ONNX (CUDA)"]
    click(page, snippets[1].find_element("css selector", "button"))
    wait_until(page, lambda p: p.execute_async_script("navigator.clipboard.readText().then(arguments[0])")
               == expected[1], what="the snippet on the clipboard")

    unsafe = page.find_element("css selector", "#kx-mylib-color-rgb-to-yuv details.kx-repro")
    click(page, unsafe.find_element("css selector", "summary"))
    snippet = wait_until(page, lambda _: unsafe.find_elements("css selector", ".kx-snippet pre"),
                         what="the unsafe case's snippet")[0]
    assert "window.__kx_xss=3" in snippet.get_attribute("textContent")
    assert unsafe.find_elements("css selector", "img") == []
    assert page.execute_script("return window.__kx_xss") is None


def test_two_pages_in_one_document_are_independent(driver, base_url):
    driver.set_window_size(1280, 900)
    driver.get(base_url + "alabaster/two_pages.html")
    pages = driver.find_elements("css selector", ".kexport")
    assert len(pages) == 2
    second_box = pages[1].find_element("css selector", ".kexport-controls input")
    second_box.send_keys("blur")

    def shown(container):
        return [tr.get_attribute("id") for tr in container.find_elements("css selector", "table.kx-t tr[id]")
                if tr.is_displayed()]

    assert len(shown(pages[0])) == 7  # the colour page is untouched
    assert [i.split("mylib-filters-")[1] for i in shown(pages[1])] == \
        ["box-blur-2", "gaussian-blur2d-2", "median-blur-2"]  # row ids of the 2nd page end in -2
    assert pages[0].find_element("css selector", "[aria-live]").text == "7 configurations"
    assert pages[1].find_element("css selector", "[aria-live]").text == "Showing 3 of 6 configurations"
    wait_until(driver, lambda d: "kx1-q=blur" in d.current_url, what="kx1-q=blur in the URL")
    assert "kx1-q=blur" in driver.current_url and "kx-q" not in driver.current_url
    assert console_errors(driver) == []


def test_untrusted_strings_never_run(page):
    assert page.execute_script("return window.__kx_xss") is None
    search(page, "onerror")
    assert visible_rows(page) == ["kx-mylib-color-rgb-to-yuv", "kx-mylib-filters-box-blur"]  # a dynamic-batch reason
    mark = page.find_element("css selector", "#kx-mylib-filters-box-blur kx-ys")
    # the reason is the row's Details' (said once), as text; the mark's tooltip keeps the batch sizes
    details = page.find_element("css selector", "#kx-mylib-filters-box-blur td:last-child")
    assert mark.text == "batch 2 only" and "<img src=x" in details.text
    assert page.execute_script("return window.__kx_xss") is None


def test_without_javascript_everything_is_readable(base_url):
    with chromium(javascript=False) as d:
        d.get(base_url + "alabaster/index.html")
        # WebDriver's own scripts still run; the page's do not.
        assert len(visible_rows(d)) == TOTAL
        assert not d.find_element("css selector", ".kexport-controls").is_displayed()
        assert d.execute_script("return window.kexportTimings") is None  # the page's script did not run
        assert d.find_element("id", "kx-mylib-geometry-warp-perspective").text.startswith("warp_perspective")


# --------------------------------------------------------------------------
# themes: pills readable in light and dark, controls keep sticking


def _colours(driver) -> dict:
    """Pill and muted-text colours, and the background each sits on."""
    return driver.execute_script("""
        function bg(el) {
          for (; el; el = el.parentElement) {
            const c = getComputedStyle(el).backgroundColor;
            if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c;
          }
          return 'rgb(255, 255, 255)';
        }
        const out = {};
        const ok = document.querySelector('.kexport table.kx-t tbody tr:not([data-s]):not([data-y]) td:nth-child(2)');
        out.ok = {fg: getComputedStyle(ok).color, page: bg(ok), text: ok.textContent};
        for (const tag of ['kx-b', 'kx-r', 'kx-m', 'kx-f', 'kx-n']) {
          const el = document.querySelector('.kexport ' + tag);
          const s = getComputedStyle(el);
          out[tag] = {fg: s.color, bg: s.backgroundColor, page: bg(el.parentElement),
                      shown: el.getClientRects().length > 0};
        }
        for (const sel of ['.kx-note', '.kexport tr[data-s] td:last-child', 'kx-v', 'kx-yo', 'kx-ys', 'kx-yf']) {
          const el = document.querySelector(sel);
          out[sel] = {fg: getComputedStyle(el).color, page: bg(el)};
        }
        const legend = document.querySelector('.kexport .kx-status--fail');
        out.legend = {fg: getComputedStyle(legend).color, bg: getComputedStyle(legend).backgroundColor};
        return out;""")


def _check_colours(colours: dict, dark: bool) -> None:
    ok = colours["ok"]  # the plain word, in the ok colour on the page's background
    assert ok["text"] == "yes" and contrast(parse_rgb(ok["fg"]), parse_rgb(ok["page"])) >= 4.5, ok
    assert (relative_luminance(parse_rgb(ok["page"])) < 0.2) == dark, ok
    assert ok["fg"] != colours[".kexport tr[data-s] td:last-child"]["fg"]  # coloured, not body text
    for tag in ("kx-b", "kx-r", "kx-m", "kx-f", "kx-n"):
        c = colours[tag]
        fg, bg, page = parse_rgb(c["fg"]), parse_rgb(c["bg"]), parse_rgb(c["page"])
        assert c["shown"], tag
        assert contrast(fg, bg) >= 4.5, (tag, c)
        assert (relative_luminance(bg) < 0.2) == dark, (tag, c)  # the pill follows the theme
        assert (relative_luminance(page) < 0.2) == dark, (tag, c)
    for sel in (".kx-note", ".kexport tr[data-s] td:last-child", "kx-v", "kx-yo", "kx-ys", "kx-yf"):
        c = colours[sel]
        assert contrast(parse_rgb(c["fg"]), parse_rgb(c["page"])) >= 4.5, (sel, c)
    assert colours["legend"] == {"fg": colours["kx-f"]["fg"], "bg": colours["kx-f"]["bg"]}


def _sticky_top(driver) -> float:
    """Scroll to the last table and report where the controls are."""
    # "instant": furo scrolls smoothly by default
    driver.execute_script("[...document.querySelectorAll('.kexport table.kx-t')].pop()"
                          ".scrollIntoView({behavior: 'instant'}); window.scrollBy({top: 100, behavior: 'instant'})")
    wait_until(driver, lambda d: d.execute_script("return scrollY") > 2000,  # far below the controls' own place
               what="the page scrolled to its last table")
    return driver.execute_script("return document.querySelector('.kexport-controls').getBoundingClientRect().top")


DARK = {
    "furo": "document.body.dataset.theme = 'dark'",
    "pydata": "document.documentElement.dataset.theme = 'dark'",
}


@pytest.mark.parametrize("theme", list(THEMES))
def test_theme_pills_readable_in_light_and_dark(driver, base_url, theme):
    driver.set_window_size(1280, 900)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": "light"}]})
    driver.get(base_url + f"{theme}/index.html")
    console_errors(driver)
    if theme == "pydata":
        driver.execute_script("document.documentElement.dataset.theme = 'light'")
    if theme == "furo":
        driver.execute_script("document.body.dataset.theme = 'light'")
    light = _colours(driver)
    driver.save_screenshot(f"/tmp/kexport-{theme}-light.png")
    _check_colours(light, dark=False)

    # Controls stick below the theme's own sticky header (pydata) or at the top.
    top = _sticky_top(driver)
    header = 64 if theme == "pydata" else 0
    assert abs(top - header) <= 2, top
    driver.save_screenshot(f"/tmp/kexport-{theme}-sticky.png")

    # Dark: the theme's own switch; light-only themes stay light on a dark OS.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": "dark"}]})
    if theme in DARK:
        driver.execute_script(DARK[theme])
    driver.execute_script("document.querySelector('.kexport table.kx-t')"
                          ".scrollIntoView({behavior: 'instant', block: 'center'})")
    wait_until(driver, settled, what="the theme's colour change to finish")
    dark = _colours(driver)
    driver.save_screenshot(f"/tmp/kexport-{theme}-dark.png")
    _check_colours(dark, dark=theme in DARK)
    if theme == "furo":  # "auto" follows the OS preference
        driver.execute_script("document.body.dataset.theme = 'auto'")
        _check_colours(_colours(driver), dark=True)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert console_errors(driver) == []


@pytest.mark.parametrize("theme", list(THEMES))
def test_narrow_screen_tables_stack_inside_the_page(driver, base_url, theme):
    """At 420 px an operator table's rows stack (no sideways scroll); the summary may scroll in its own box.
    Every cell on a phone: test_browser_layout.py."""
    driver.set_window_size(420, 900)
    try:
        driver.get(base_url + f"{theme}/index.html")
        state = driver.execute_script("""
            const w = document.querySelector('.kexport .kx-w');
            w.scrollIntoView({behavior: 'instant'});  // rendered, not skipped by content-visibility
            const edges = [...document.querySelectorAll('.kexport .kx-w, .kexport table.kexport-summary')]
              .map(e => e.getBoundingClientRect().right);
            return {scrolls: w.scrollWidth > w.clientWidth, right: Math.max(...edges),
                    display: getComputedStyle(w.querySelector('tbody tr')).display,
                    width: document.documentElement.clientWidth};""")
        assert not state["scrolls"] and state["display"] == "grid", state
        assert state["right"] <= state["width"] + 1, state
    finally:
        driver.set_window_size(1280, 900)

