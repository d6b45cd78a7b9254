"""The example project: kornia's survey builds -W clean, every row links, and the page fits the theme."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from browser_support import chromium, chromium_available, console_errors, serve

EXAMPLE = Path(__file__).resolve().parents[1] / "example_docs"

pytest.importorskip("kornia")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("example") / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(EXAMPLE), str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.strip() == ""
    return out


def test_every_probed_configuration_is_a_row_and_links_to_its_api_entry(built):
    snapshot = json.loads((EXAMPLE / "_data" / "export_support.json").read_text())
    probed = [c for c in snapshot["cases"]
              if any(r["status"] != "n/a" for paths in c["results"].values() for r in paths.values())]
    soup = BeautifulSoup((built / "export-support.html").read_text(encoding="utf-8"), "lxml")
    rows = soup.select("table.kx-t tbody tr")
    assert len(rows) == len(probed) >= 250
    linked = [r for r in rows if r.select_one("td a.reference.internal")]
    assert len(linked) == len(rows)
    # The links land on real autodoc entries.
    href = linked[0].select_one("td a.reference.internal")["href"]
    page, anchor = href.split("#")
    target = BeautifulSoup((built / page).read_text(encoding="utf-8"), "lxml")
    assert target.find(id=anchor) is not None


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason="Debian chromium and chromium-driver are not installed")
def test_the_page_fits_beside_pydata_sidebars(built):
    # Regression: with overflow visible (for the sticky controls) pydata's
    # article container grew to its widest content and slid under the sidebar.
    with serve(built) as url, chromium(width=1400, height=900) as driver:
        driver.get(url + "export-support.html")
        state = driver.execute_script("""
            const article = document.querySelector('.bd-article-container').getBoundingClientRect();
            const side = document.querySelector('.bd-sidebar-primary').getBoundingClientRect();
            return {doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
                    left: article.left, sideRight: side.right};""")
        assert state["doc"] <= state["view"] + 1, state
        assert state["left"] >= state["sideRight"] - 1, state
        # Regression: pydata gives code `overflow-wrap: break-word`, so a long source location in
        # the details column set the column's minimum width and pushed the details out of view.
        # At a desktop width every table fits its scroll wrapper.
        overflowing = driver.execute_script("""
            return [...document.querySelectorAll('.kexport .kx-w')]
              .filter(w => w.scrollWidth > w.clientWidth + 1)
              .map(w => [w.firstElementChild.id, w.clientWidth, w.scrollWidth]);""")
        assert overflowing == []
        # pydata logs its own theme-switcher notice; our script must log nothing
        assert [e for e in console_errors(driver) if "kexport" in e] == []
