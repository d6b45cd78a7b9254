"""Snapshot strings are data, never markup.

tests/page/roots/test-injection puts HTML (script tags, attribute injection),
reStructuredText (references, roles, a raw directive), Jinja and LaTeX
markup in every string field: case names, packages, sections, operators,
variants, refs, notes, details, locations, missing names and every header
value. Each builder must show them as text.
"""

from __future__ import annotations

import json
import re

import pytest
from page_support import ROOTS, output, soup, warnings
from sphinx.util.texescape import escape as tex_escape

SNAPSHOT = json.loads((ROOTS / "test-injection" / "_data" / "export_support.json").read_text())
LATEX = r"\input{/etc/passwd} } % # & _ ^ ~ \ $x$"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_fixture_really_carries_the_markup():
    text = "\n".join(_strings(SNAPSHOT))
    for needle in ("<script>", "onerror=", "`x`_", ".. raw:: html", "{{ 7*7 }}", "{% if", r"\input{", "$x$"):
        assert needle in text


def test_html_shows_markup_as_text(build_once):
    app = build_once("injection", "html")
    assert warnings(app) == ""
    page = soup(app)
    body = page.select_one("div.body")
    # Nothing was interpreted: no element came out of the data ...
    assert not body.select("script, img, iframe")
    assert not [b for b in body.select("b") if b.get_text() == "raw"]
    assert not [tag for tag in body.find_all(True) if any(name.startswith("on") for name in tag.attrs)]
    assert not [strong for strong in body.select("strong") if strong.get_text() == "bold"]
    assert "49" not in body.get_text()
    assert not body.select('a[href="#x"], a[href="x"]')
    # ... and the data is all there, as text.
    text = _one_line(body.get_text())
    for value in ("<script>alert('x')</script>", '"><img src=x onerror=alert(1)>', "`x`_ and :ref:`y` **bold**",
                  "{{ 7*7 }} {% if true %}jinja{% endif %}", LATEX, ".. raw:: html <b>raw</b>"):
        assert value in text
    shown = [SNAPSHOT["generated_at"], *SNAPSHOT["library"].values(), *SNAPSHOT["missing"],
             *(v for v in SNAPSHOT["environments"]["cpu"].values() if isinstance(v, str))]
    for case in SNAPSHOT["cases"]:
        shown += [case["package"], case["operator"], case["variant"]]
        shown += [r[k] for r in case["results"]["cpu"].values() for k in ("detail", "where") if r[k]]
    for value in shown:
        assert _one_line(value) in text, value


def test_latex_escapes_every_string(build_once):
    app = build_once("injection", "latex")
    assert warnings(app) == ""
    tex = output(app, "injection.tex")
    assert r"\input{/etc/passwd}" not in tex
    assert tex_escape(LATEX) in tex
    assert "{{ 7*7 }}" not in tex  # braces are escaped: \{\{ 7*7 \}\}
    assert tex_escape("{{ 7*7 }}") in tex
    # the operator, variant and detail strings reach the rows' longtables escaped
    rows = tex[tex.index(r"\begin{longtable}"):]
    assert tex_escape("op " + "`x`_ and :ref:`y` **bold**") in rows or tex_escape("`x`_") in rows
    assert r"\sphinxcode{\sphinxupquote{[" in rows


@pytest.mark.parametrize("builder, name", [("text", "index.txt"), ("man", "injection.1"),
                                           ("texinfo", "injection.texi")])
def test_static_builders_show_markup_as_text(build_once, builder, name):
    app = build_once("injection", builder)
    assert warnings(app) == ""
    text = output(app, name)
    if builder == "man":
        # roff spelling of the same characters; a data line starting with "."
        # must be protected (\&) so it is not a request
        assert not [line for line in text.splitlines() if line.startswith(".. raw")]
        assert r"\einput{/etc/passwd}" in text
        return
    plain = _one_line(text)
    for value in ("<script>alert('x')</script>", "{{ 7*7 }}"):
        assert value in plain or value.replace("{", "@{").replace("}", "@}") in plain
    assert "\\input{/etc/passwd}" in plain or "\\input@{/etc/passwd@}" in plain


def test_version_strip_and_selector_show_markup_as_text(build_once):
    """A page across torch versions (test-versions/injection.rst): the torch version (a pre-release whose
    tail is markup) and the details reach the words, the strip and the selector as text."""
    app = build_once("versions", "html")
    assert warnings(app) == ""
    page = soup(app, "injection.html")
    body = page.select_one("div.body")
    assert not body.select("script, img, iframe")
    assert not [tag for tag in body.find_all(True) if any(name.startswith("on") for name in tag.attrs)]
    version = "2.12.0rc1<script>alert('v')</script>"
    assert page.select_one("div.kexport")["data-versions"] == f"{version}|2.12.0"
    assert [o["value"] for o in body.select("select[data-kx=version] option")] == ["2.12.0", version]
    strip = body.select_one("details.kx-vs")
    assert strip.select_one("summary").get_text() == f"{version} no · 2.12.0 yes"
    first = strip.select_one("li").get_text()
    assert first.startswith(f"torch {version}: no — <script>alert('x')</script> | ")
    assert body.select_one("small.kx-vm").get_text() == "since torch 2.12.0"
    assert f"torch {version}: snapshot of" in _one_line(body.get_text())
