"""The search box finds a row by any public name of its object, driven in headless Chromium on
tests/page/roots/test-aliases (built with Sphinx): the name the row links to, or one listed under "also:"; and the
distinct-operator figure the script recounts counts the object once."""

from __future__ import annotations

import pytest

from browser_support import IN_CHROMIUM, build_html, opened, visible_rows
from page_support import copy_root

pytestmark = IN_CHROMIUM


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = copy_root("aliases", tmp_path_factory.mktemp("aliases-root"))
    out = src.parent / "html"
    assert build_html(src, out) == ""
    return out


def _search(driver, text: str) -> list[str]:
    driver.execute_script("const i = document.querySelector('.kexport-controls input[type=search]');"
                          "i.value = arguments[0]; i.dispatchEvent(new Event('input'));", text)
    return sorted(visible_rows(driver))


def _operators(driver) -> str:
    return driver.execute_script("return document.querySelector('.kexport-count--operators').textContent")


def test_searching_an_alias_finds_the_row(driver, base_url):
    with opened(driver, base_url + "index.html") as page:
        # aliaslib.filters.smooth is only listed under "also:" (the rows link to aliaslib.smooth)
        assert _search(page, "aliaslib.filters.smooth") == ["kx-smooth", "kx-smooth-doc"]
        assert _operators(page) == "1"
        # tanh_gelu is the alias of gelu_tanh's row and the name of the other row: one object, two rows
        assert _search(page, "tanh_gelu") == ["kx-gelu-tanh", "kx-tanh-gelu-doc"]
        assert _operators(page) == "1"
        # a dotted name as written, or as its words: the row that lists it
        assert _search(page, "aliaslib.tanh_gelu") == ["kx-gelu-tanh"]
        assert _search(page, "aliaslib tanh-gelu") == ["kx-gelu-tanh", "kx-tanh-gelu-doc"]
        assert _search(page, "filters.blur") == []  # blur has no other name
        assert len(_search(page, "")) == 6
