"""The page's layout in four themes, at a desktop and a phone width, measured in headless Chromium.

tests/page/roots/test-browser (built once per theme for the session, shared with
test_browser.py) is loaded at 1,400 px and 400 px, and element boxes are
measured with getBoundingClientRect / scrollWidth:

- nothing spills out of a summary card: every element and every line of text
  inside a card lies inside the card's box (long code literals wrap);
- every table fits its column, or sits in a scroll container (overflow-x
  auto/scroll) that stays inside the page and visibly says it scrolls: the
  script marks it ``kx-more-r`` / ``kx-more-l`` while columns are hidden to
  that side, and the stylesheet fades that edge; scrolled to its end, the
  marks swap;
- no header cell is cut off outside such a container, and the page itself
  never scrolls sideways;
- at 1,400 px the legend and the summary by package fit without scrolling;
- at 400 px the operator tables never scroll sideways: their rows stack, and
  every cell of every shown row (the "Reproduce" boxes open) lies inside the
  viewport, needs no scroll container and keeps its content inside it; each
  status and details cell shows its column's label ("torch.compile · CUDA"),
  legible in light and dark; search and the filter still hide rows.

Screenshots land in /tmp/kexport-layout-<theme>-<width>.png for a person to look at
(at 400 px: the geometry table, stacked; the cards in ...-400-cards.png).
"""

from __future__ import annotations


import pytest

from browser_support import (IN_CHROMIUM, THEMES, console_errors, contrast, load_light, open_details, parse_rgb,
                             visible_rows)

pytestmark = IN_CHROMIUM

WIDE, PHONE = 1400, 400


@pytest.fixture(scope="module")
def site(theme_sites):
    return theme_sites[0]


# One pass over the page: each card and table is scrolled into view (tables far
# off screen are not laid out: content-visibility), given two frames for the
# script's observer, then measured. Returns a list of problems, in words.
MEASURE = """
const [mustFit, done] = [arguments[0], arguments[arguments.length - 1]];
const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 20))));
const root = document.querySelector('.kexport');
const problems = [];
const px = n => Math.round(n);
const text = el => (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50);
function scroller(el) {  // the nearest container, itself included, that scrolls sideways
  for (; el && el !== root; el = el.parentElement) {
    const o = getComputedStyle(el).overflowX;
    if (o === 'auto' || o === 'scroll') return el;
  }
  return null;
}
function boxes(container) {  // [what, rect] for every element and every text line inside
  const out = [];
  for (const el of container.querySelectorAll('*'))
    for (const r of el.getClientRects()) out.push([el.tagName.toLowerCase() + ' "' + text(el) + '"', r]);
  const walk = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  for (let node; (node = walk.nextNode());) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) out.push(['text "' + node.textContent.trim().slice(0, 50) + '"', r]);
  }
  return out.filter(([, r]) => r.width > 0 && r.height > 0);
}
function fade(el) {
  const s = getComputedStyle(el);
  return (s.maskImage || s.webkitMaskImage || 'none') !== 'none';
}
(async () => {
  const page = root.getBoundingClientRect();
  for (const card of root.querySelectorAll('.kexport-card')) {
    card.scrollIntoView({block: 'center', behavior: 'instant'});
    await frames();
    const c = card.getBoundingClientRect(), title = text(card.querySelector('.sd-card-title'));
    for (const [what, r] of boxes(card))
      if (r.left < c.left - 1 || r.right > c.right + 1)
        problems.push(`card "${title}": ${what} spills out (${px(r.left)}..${px(r.right)} outside ${px(c.left)}..${px(c.right)})`);
  }
  const tables = [...root.querySelectorAll('table')];
  if (tables.length < 5) problems.push(`only ${tables.length} tables on the page`);
  for (const table of tables) {
    const name = `table.${[...table.classList][0]}` + (table.id ? '#' + table.id : '');
    table.scrollIntoView({block: 'start', behavior: 'instant'});
    await frames();
    const s = scroller(table), limit = (s || root).getBoundingClientRect();
    const scrolls = !!s && s.scrollWidth > s.clientWidth + 1;
    if (s) {
      const r = s.getBoundingClientRect();
      if (r.left < page.left - 1 || r.right > page.right + 1)
        problems.push(`${name}: its scroll container spills out of the page (${px(r.left)}..${px(r.right)})`);
    }
    if (scrolls) {
      if (mustFit.some(sel => table.matches(sel)))
        problems.push(`${name} scrolls sideways (${s.scrollWidth} px in ${s.clientWidth} px) but should fit`);
      if (!s.classList.contains('kx-more-r') || s.classList.contains('kx-more-l') || !fade(s))
        problems.push(`${name} scrolls sideways (${s.scrollWidth} px in ${s.clientWidth} px) without saying so ` +
                      `(classes "${s.className}", faded: ${fade(s)})`);
      s.scrollLeft = s.scrollWidth;  // at the far end the hint points the other way
      await frames();
      if (s.classList.contains('kx-more-r') || !s.classList.contains('kx-more-l') || !fade(s))
        problems.push(`${name} scrolled to its end: classes "${s.className}", faded: ${fade(s)}`);
      s.scrollLeft = 0;
      await frames();
      continue;
    }
    if (s && (s.classList.contains('kx-more-r') || s.classList.contains('kx-more-l') || fade(s)))
      problems.push(`${name} fits but its container says it scrolls ("${s.className}")`);
    const t = table.getBoundingClientRect();
    if (t.right > limit.right + 1 || t.left < limit.left - 1)
      problems.push(`${name} runs out of its column (${px(t.left)}..${px(t.right)} outside ${px(limit.left)}..${px(limit.right)})`);
    for (const th of table.querySelectorAll('th')) {
      const r = th.getBoundingClientRect();
      if (r.right > Math.min(limit.right, document.documentElement.clientWidth) + 1)
        problems.push(`${name}: header "${text(th)}" is cut off at the right (${px(r.right)} > ${px(limit.right)})`);
      if (th.scrollWidth > th.clientWidth + 1)
        problems.push(`${name}: header "${text(th)}" is clipped inside its cell`);
    }
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1)
    problems.push(`the page scrolls sideways (${doc.scrollWidth} px in ${doc.clientWidth} px)`);
  return problems;
})().then(done, e => done(['script error: ' + e]));
"""


@pytest.mark.parametrize("width", [WIDE, PHONE])
@pytest.mark.parametrize("theme", list(THEMES))
def test_nothing_spills_and_wide_tables_say_they_scroll(driver, base_url, theme, width):
    load_light(driver, base_url + f"{theme}/index.html", theme, width)  # the colours are test_browser.py's
    must_fit = [".kexport-summary", ".kexport-legend"] if width == WIDE else [".kx-t"]
    problems = driver.execute_async_script(MEASURE, must_fit)
    driver.execute_script("document.querySelector('.kexport-cards').scrollIntoView({behavior: 'instant'})")
    driver.save_screenshot(f"/tmp/kexport-layout-{theme}-{width}" + ("" if width == WIDE else "-cards") + ".png")
    assert problems == [], "\n".join(problems)
    assert console_errors(driver) == []


# --------------------------------------------------------------------------
# a phone: the operator tables stack, every cell on screen and labelled

# Each status column's header, in the order of a row's cells, then the details'.
LABELS = ["ONNX · CPU", "ONNX · CUDA", "torch.export · CPU", "torch.export · CUDA",
          "torch.compile · CPU", "torch.compile · CUDA"]
DARK = {"furo": "document.body.dataset.theme = 'dark'",
        "pydata": "document.documentElement.dataset.theme = 'dark'"}

# Every cell (td and th) of every shown row of the operator tables, measured after
# scrolling its table into view. Returns a list of problems, in words.
MEASURE_CELLS = """
const [labels, done] = [arguments[0], arguments[arguments.length - 1]];
const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 20))));
const root = document.querySelector('.kexport'), vw = document.documentElement.clientWidth;
const problems = [], px = Math.round;
const quoted = c => /^".*"$/.test(c) ? c.slice(1, -1) : '';  // computed `content`: "text", or none/normal
function bg(el) {
  for (; el; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
}
function scroller(el) {  // an ancestor, up to the page's container, that would scroll the cell sideways
  for (el = el.parentElement; el && el !== root.parentElement; el = el.parentElement) {
    const o = getComputedStyle(el).overflowX;
    if ((o === 'auto' || o === 'scroll') && el.scrollWidth > el.clientWidth + 1) return el;
  }
  return null;
}
(async () => {
  const colours = [];
  for (const table of root.querySelectorAll('table.kx-t')) {
    if (!table.getClientRects().length) continue;  // a package the filter hid
    table.scrollIntoView({block: 'start', behavior: 'instant'});
    await frames();
    for (const tr of table.rows) {
      if (tr.hidden || tr.offsetParent === null) continue;
      const body = tr.parentElement.tagName === 'TBODY', last = tr.cells.length - 1;
      [...tr.cells].forEach((cell, i) => {
        const what = `${table.id} ${tr.id || 'header'} cell ${i + 1} "${cell.textContent.trim().slice(0, 30)}"`;
        const r = cell.getBoundingClientRect();
        if (r.left < -1 || r.right > vw + 1)
          problems.push(`${what} is outside the viewport (${px(r.left)}..${px(r.right)} of 0..${vw})`);
        const s = scroller(cell);
        if (s) problems.push(`${what} sits in a sideways scroll container (${s.scrollWidth} px in ${s.clientWidth} px)`);
        if (cell.scrollWidth > cell.clientWidth + 1)
          problems.push(`${what}: its content runs out of the cell (${cell.scrollWidth} px in ${cell.clientWidth} px)`);
        // labelled: status cells and non-empty details (the operator is the stacked row's title)
        if (!body || i === 0 || (i === last && !cell.textContent.trim())) return;
        const before = getComputedStyle(cell, '::before'), want = i === last ? 'Details' : labels[i - 1];
        const shown = quoted(before.content);
        if (shown !== want || before.display === 'none')
          problems.push(`${what} shows the label ${JSON.stringify(shown || before.content)}, not "${want}"`);
        else if (colours.length < 3) colours.push([what, before.color, bg(cell)]);
      });
    }
  }
  return [problems, colours];
})().then(done, e => done([['script error: ' + e], []]));
"""


def _measure_cells(driver) -> list[str]:
    problems, colours = driver.execute_async_script(MEASURE_CELLS, LABELS)
    for what, fg, bg in colours:
        if contrast(parse_rgb(fg), parse_rgb(bg)) < 4.5:
            problems.append(f"{what}: its label ({fg} on {bg}) is hard to read")
    return problems


@pytest.mark.parametrize("theme", list(THEMES))
def test_on_a_phone_every_cell_is_on_screen_and_says_its_column(driver, base_url, theme):
    load_light(driver, base_url + f"{theme}/index.html", theme, PHONE)
    # every "Reproduce" box open (the script fills in its snippets), so they are measured too
    open_details(driver, ".kexport table.kx-t details")
    assert driver.find_elements("css selector", ".kexport table.kx-t .kx-snippet pre")
    assert len(visible_rows(driver)) == 29
    problems = _measure_cells(driver)
    driver.execute_script("document.getElementById('kx-mylib-geometry-warp-perspective')"
                          ".scrollIntoView({block: 'start', behavior: 'instant'})")
    driver.save_screenshot(f"/tmp/kexport-layout-{theme}-{PHONE}.png")
    assert problems == [], "\n".join(problems)

    if theme in DARK:
        driver.execute_script(DARK[theme])
        problems = _measure_cells(driver)
        driver.save_screenshot(f"/tmp/kexport-layout-{theme}-{PHONE}-dark.png")
        assert problems == [], "dark:\n" + "\n".join(problems)

    # the script's search and filter still hide rows in the stacked layout
    box = driver.find_element("css selector", ".kexport-controls input[type=search]")
    box.send_keys("svd")
    assert visible_rows(driver) == ["kx-mylib-geometry-warp-perspective", "kx-mylib-geometry-solve-pnp"]
    box.clear()
    driver.execute_script("const s = document.querySelector('.kexport-controls select[data-kx=filter]');"
                          "s.value = 'fail-compile'; s.dispatchEvent(new Event('change'));")
    shown = visible_rows(driver)
    assert shown and len(shown) < 29
    assert _measure_cells(driver) == []
    assert console_errors(driver) == []


# --------------------------------------------------------------------------
# a phone: the boxes above the figures keep long case names inside them

LONG = "geometry.transform.warp_perspective_with_border_reflect_and_align_corners[batch_of_eight_float32]"


@pytest.mark.parametrize("theme", list(THEMES))
def test_on_a_phone_long_case_names_wrap_inside_the_incomplete_and_selection_boxes(driver, theme, tmp_path):
    import json

    from browser_support import build_html, serve
    from page_support import copy_root

    src = copy_root("basic", tmp_path)
    snapshot = src / "_data" / "export_support.json"
    data = json.loads(snapshot.read_text())
    data["cases"][-1]["name"] = LONG  # left out by --only; its results go, as an --only run leaves them
    data["cases"][-1]["results"] = {}
    data["complete"], data["missing"] = False, [LONG, LONG.replace("eight", "nine")]
    data["selection"] = {"only": [LONG.rsplit("[", 1)[0] + "_and_more"], "left_out": [LONG]}
    snapshot.write_text(json.dumps(data))
    assert build_html(src, tmp_path / "html", html_theme=THEMES[theme]) == ""
    with serve(tmp_path / "html") as url:
        driver.set_window_size(PHONE, 900)
        driver.get(url + "index.html")
        problems = driver.execute_script("""
          const problems = [], vw = document.documentElement.clientWidth;
          const boxes = document.querySelectorAll('.kexport .kexport-incomplete, .kexport .kexport-selection');
          if (boxes.length !== 2) problems.push(`${boxes.length} boxes`);
          for (const box of boxes) {
            const b = box.getBoundingClientRect();
            for (const code of box.querySelectorAll('code'))
              for (const r of code.getClientRects())
                if (r.left < b.left - 1 || r.right > b.right + 1 || r.right > vw + 1)
                  problems.push(`${box.className}: "${code.textContent.slice(0, 40)}" runs out of its box ` +
                                `(${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(b.left)}..${Math.round(b.right)})`);
          }
          return problems;""")
        driver.save_screenshot(f"/tmp/kexport-layout-{theme}-{PHONE}-notices.png")
    assert problems == [], "\n".join(problems)
