"""Operator links resolved at build time: the project's own Python domain,
intersphinx, then ``kexport_inventories``; unresolved names stay code and
are silent, even under ``-n -W``, unless ``kexport_warn_unresolved``.

tests/page/roots/test-xref documents ``mylib.own_fn`` and ``mylib.OwnClass`` and
renders its page at support/export.rst. Its snapshot refers to those, to
``extlib.color.blur`` and ``extlib.color.Sharpen.forward`` (documented by
tests/page/roots/test-xref-lib, whose real objects.inv the tests feed in), and to
two names nobody documents.
"""

from __future__ import annotations

import pytest
from page_support import soup, tables, warnings




@pytest.fixture(scope="module")
def inventory(build_once):
    """objects.inv written by a real Sphinx build of a small library."""
    lib = build_once("xref-lib", "html")
    assert warnings(lib) == ""
    return str(lib.outdir / "objects.inv")


def links(app) -> dict[str, str]:
    doctree = app.env.get_and_resolve_doctree("support/export", app.builder, tags=app.tags)
    found = {}
    for table in tables(doctree):
        for row in table["rows"]:
            if row["id"] in table["links"]:
                found[row["name"]] = table["links"][row["id"]]
    return found


def test_own_python_domain_first_relative_to_the_page(build_once):
    app = build_once("xref", "html")
    assert warnings(app) == ""
    assert links(app) == {"own": "../api.html#mylib.own_fn",
                          "guessed": "../api.html#mylib.OwnClass"}  # no ref: package.operator tried
    page = soup(app, "support/export.html")
    assert page.select_one('div.kexport a[href="../api.html#mylib.own_fn"]') is not None
    # not found: shown as code, not as a link
    assert "not_documented" in page.select_one("div.kexport").get_text()
    assert not [a for a in page.select("div.kexport a[href]") if "not_documented" in a["href"]]


def test_intersphinx_inventory_from_a_local_file(build_once, inventory):
    app = build_once("xref", "html",
                     confoverrides={"intersphinx_mapping": {"lib": ("https://example.invalid/", inventory)}})
    assert warnings(app) == ""
    found = links(app)
    assert found["external"] == "https://example.invalid/api/color.html#extlib.color.blur"
    assert found["external method"] == "https://example.invalid/api/color.html#extlib.color.Sharpen.forward"
    assert found["own"] == "../api.html#mylib.own_fn"  # the project's own entry still wins


def test_kexport_inventories_with_a_base_url(build_once, inventory):
    app = build_once("xref", "html",
                     confoverrides={"kexport_inventories": {"lib": ("https://example.invalid/lib/", inventory)}})
    assert warnings(app) == ""
    assert links(app)["external"] == "https://example.invalid/lib/api/color.html#extlib.color.blur"


def test_kexport_inventories_of_the_same_site_link_relative_to_the_page(build_once, inventory):
    app = build_once("xref", "html", confoverrides={"kexport_inventories": {"lib": inventory}})
    assert warnings(app) == ""
    assert links(app)["external"] == "../api/color.html#extlib.color.blur"


def test_nitpicky_and_warnings_as_errors_stay_green(build_once, inventory):
    app = build_once("xref", "html", warningiserror=True,
                     confoverrides={"nitpicky": True,
                                    "intersphinx_mapping": {"lib": ("https://example.invalid/", inventory)}})
    assert warnings(app) == ""
    assert app.statuscode == 0
    assert set(links(app)) == {"own", "guessed", "external", "external method"}


def test_warn_unresolved_gives_one_typed_warning(build_once):
    app = build_once("xref", "html", confoverrides={"kexport_warn_unresolved": True})
    lines = warnings(app).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith(
        "support/export.rst:4: WARNING: export-support: 4 operator references found no target and are "
        "shown as code: mylib.gone, mylib.not_documented, extlib.color.blur, extlib.color.Sharpen.forward "
        "[kexport.unresolved]")


def test_suppress_warnings_silences_the_unresolved_warning(build_once):
    app = build_once("xref", "html", confoverrides={"kexport_warn_unresolved": True,
                                                    "suppress_warnings": ["kexport.unresolved"]})
    assert warnings(app) == ""


def test_unreadable_inventory_is_one_warning(build_once, tmp_path):
    app = build_once("xref", "html", confoverrides={"kexport_inventories": {"lib": str(tmp_path / "none.inv")}})
    lines = warnings(app).strip().splitlines()
    assert len(lines) == 1 and "kexport_inventories['lib']: cannot read" in lines[0]
    assert lines[0].endswith("[kexport.inventory]")
