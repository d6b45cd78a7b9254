"""Accessibility: axe-core (npm, pinned by scripts/setup-env.sh) on the page in four themes, light and dark.

Pages, each in alabaster, furo, pydata-sphinx-theme and sphinx-rtd-theme:

- tests/page/roots/test-browser's page: every status, the comparison with an older snapshot, the failure
  reasons, "Reproduce" boxes (the build the other browser modules share);
- tests/page/roots/test-speed's page: speed marks, the speed filters and order, the speed picture (SVG);
- the example site's torch-versions sample (example_docs/_data/versions/kornia-sample-*.json, three torch
  versions) with the worklist on, its two smaller packages only (42 cases: every row is the same markup, and
  axe's time grows with the rows), and an API page whose entries carry badges.

Each is loaded at a desktop width with every <details> open (their contents rendered, so checked too);
any serious or critical violation in our markup fails (axe_support.OURS: why that scope).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from axe_support import axe_version, describe, run_axe, serious
from browser_support import IN_CHROMIUM, THEMES, build_html, colour_scheme, open_details, opened

pytestmark = IN_CHROMIUM

EXAMPLE_DATA = Path(__file__).resolve().parents[2] / "example_docs" / "_data" / "versions"
SAMPLES = [f"kornia-sample-torch-{v}.json" for v in ("2.9.1", "2.13.0", "2.15.0")]
PAGES = ["scenario/{theme}/index.html", "speed/{theme}/index.html", "example/{theme}/index.html",
         "example/{theme}/api.html"]
SPEED_ROOT = Path(__file__).resolve().parent / "roots" / "test-speed"


@pytest.fixture(scope="module")
def site(theme_sites, tmp_path_factory):
    """One folder served: the shared scenario builds (scenario/<theme>/), the speed scenario (speed/<theme>/)
    and the example's sample page built here in every theme (example/<theme>/)."""
    top = tmp_path_factory.mktemp("axe-site")
    (top / "scenario").symlink_to(theme_sites[0], target_is_directory=True)
    src = tmp_path_factory.mktemp("axe-example-src")
    (src / "_data").mkdir()
    for name in SAMPLES:
        shutil.copy(EXAMPLE_DATA / name, src / "_data" / name)
    (src / "conf.py").write_text('project = "kornia"\nextensions = ["sphinx_kexport"]\nkexport_api_badges = True\n',
                                 encoding="utf-8")
    (src / "index.rst").write_text(
        "Torch versions: a sample\n========================\n\n"
        f".. export-support:: {' '.join('_data/' + n for n in SAMPLES)}\n"
        "   :packages: kornia.contrib, kornia.utils\n   :worklist: on\n\n"
        ".. toctree::\n\n   api\n", encoding="utf-8")
    (src / "api.rst").write_text(
        "API\n===\n\n.. py:module:: kornia.contrib\n\n.. py:function:: distance_transform(image)\n\n   Distances.\n\n"
        ".. py:function:: extract_tensor_patches(input, window_size)\n\n   Patches.\n", encoding="utf-8")
    for name, theme in THEMES.items():
        assert build_html(src, top / "example" / name, html_theme=theme) == ""
        assert build_html(SPEED_ROOT, top / "speed" / name, html_theme=theme) == ""
    return top


def _prepare(driver, theme: str, mode: str) -> None:
    colour_scheme(driver, theme, mode)
    # every box open; the script fills a "Reproduce" box on its toggle event, which comes a task later
    open_details(driver, ".kexport details")


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("page", PAGES)
def test_no_serious_or_critical_violation_in_our_markup(driver, base_url, page, theme, mode):
    url = base_url + page.format(theme=theme)
    driver.set_window_size(1280, 900)
    with opened(driver, url):
        _prepare(driver, theme, mode)
        rules, found = run_axe(driver)
    assert {"color-contrast", "scrollable-region-focusable", "button-name", "label", "aria-valid-attr-value",
            "link-name", "list"} <= set(rules)  # the rules that matter here did run on our markup
    assert serious(found) == [], (f"axe-core {axe_version()} on {page.format(theme=theme)} ({mode}):\n"
                                  + describe(serious(found)))


def test_the_check_reports_violations_in_our_markup_and_leaves_the_themes_out(driver, base_url):
    """The checker itself: an image without alt text and a button without a name put into the page are
    reported with rule, impact, where and help; the same button in the theme's footer is not ours."""
    url = base_url + "scenario/alabaster/index.html"
    driver.set_window_size(1280, 900)
    with opened(driver, url):
        driver.execute_script("""
            const page = document.querySelector('.kexport'), footer = document.querySelector('.footer');
            page.insertAdjacentHTML('afterbegin', '<img id="kx-test-img" src="data:,"><button id="kx-test-button"></button>');
            footer.insertAdjacentHTML('beforeend', '<button id="theme-test-button"></button>');""")
        rules, found = run_axe(driver)
    by_rule = {v.rule: v for v in serious(found)}
    assert set(by_rule) == {"image-alt", "button-name"}, describe(found)
    assert by_rule["image-alt"].impact == "critical" and by_rule["image-alt"].target == "#kx-test-img"
    assert by_rule["button-name"].target == "#kx-test-button"
    line = str(by_rule["button-name"])
    assert line.startswith("button-name (critical) at #kx-test-button: Buttons must have discernible text")
    assert "dequeuniversity.com/rules/axe/" in line
    assert not any("theme-test-button" in v.target for v in found)
