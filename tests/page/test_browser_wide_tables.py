""""Where to fix first" and "Not probed" at 1,400 px, in Sphinx's default theme and the three others.

tests/page/roots/test-wide-tables (a graph library whose paths, statements and names are long, issue 60) is
built in each theme and loaded in headless Chromium at 1,400 x 900. In alabaster those names once set
their columns' widths: the worklist ran 900 px past its 660 px column, squeezing its fix column to a
few words a line, and the "Not probed" tables ran past the window's edge. Now:

- no table of the page is cut off: each fits its column, or scrolls inside a box of its own that stays
  in the page and says it scrolls (test_browser_layout.py's measure), and the page never scrolls sideways;
  the "Not probed" tables (three columns) and the reason index fit, only the worklist may scroll;
- the worklist's fix column is at least 15 em wide (some 30 characters a line) in every row;
- no cell of the worklist or the "Not probed" tables lets its content run out of it.

Screenshots land in /tmp/kexport-wide-tables-<theme>.png (the worklist) for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import IN_CHROMIUM, THEMES, build_html, console_errors, load_light, serve
from test_browser_layout import MEASURE, WIDE

pytestmark = IN_CHROMIUM

ROOT = Path(__file__).parent / "roots" / "test-wide-tables"
READABLE_EM = 15  # the fix column's narrowest width, in its own font's em


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    out = tmp_path_factory.mktemp("wide-tables")
    warnings = {name: build_html(ROOT, out / name, html_theme=theme) for name, theme in THEMES.items()}
    assert warnings == {name: "" for name in THEMES}
    with serve(out) as url:
        yield url


# The width of the fix column's cells (by its header) and every cell whose content runs out of it.
MEASURE_COLUMNS = """
const [header] = arguments;
const problems = [], widths = [];
const text = el => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40);
for (const table of document.querySelectorAll('.kexport :is(table.kexport-worklist, table.kexport-not-probed, ' +
                                              'table.kexport-without-cases)')) {
  const name = [...table.classList][0];
  for (const cell of table.querySelectorAll('td, th'))
    if (cell.scrollWidth > cell.clientWidth + 1)
      problems.push(`${name}: "${text(cell)}" runs out of its cell (${cell.scrollWidth} px in ${cell.clientWidth} px)`);
  if (!table.matches('.kexport-worklist')) continue;
  const column = [...table.querySelectorAll('thead th')].findIndex(th => text(th) === header);
  if (column < 0) { problems.push(`${name}: no column "${header}"`); continue; }
  for (const tr of table.querySelectorAll('tbody tr')) {
    const cell = tr.cells[column], s = getComputedStyle(cell);
    const inner = cell.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    widths.push([text(cell), inner / parseFloat(s.fontSize), Math.round(inner)]);
  }
}
return [problems, widths];
"""


@pytest.mark.parametrize("theme", list(THEMES))
def test_the_worklist_and_not_probed_tables_are_whole_and_the_fix_is_readable(driver, sites, theme):
    load_light(driver, sites + f"{theme}/index.html", theme, WIDE)
    assert len(driver.find_elements("css selector", ".kexport table.kexport-worklist tbody tr")) == 2
    assert driver.find_elements("css selector", ".kexport table.kexport-not-probed tbody tr")
    assert driver.find_elements("css selector", ".kexport table.kexport-without-cases tbody tr")

    # three columns each, and the reason index: these fit the column, only the worklist may scroll
    must_fit = [".kexport-summary", ".kexport-legend", ".kexport-not-probed", ".kexport-without-cases", ".kx-rs"]
    problems = driver.execute_async_script(MEASURE, must_fit)
    cells, widths = driver.execute_script(MEASURE_COLUMNS, "Class and fix")
    driver.execute_script("window.scrollTo(0, document.querySelector('.kexport-worklist').getBoundingClientRect().top"
                          " + window.scrollY - 40)")
    driver.save_screenshot(f"/tmp/kexport-wide-tables-{theme}.png")
    assert problems == [], "\n".join(problems)
    assert cells == [], "\n".join(cells)
    assert len(widths) == 2
    narrow = [f'"{what}": {em:.1f} em ({px} px)' for what, em, px in widths if em < READABLE_EM]
    assert narrow == [], f"the fix column is narrower than {READABLE_EM} em:\n" + "\n".join(narrow)
    assert console_errors(driver) == []
