"""Links from operator names to their API documentation, found at build time.

Each row's ``ref`` (a dotted Python name) is looked up, in order, in

1. the project's own Python domain (autodoc entries, ``py:function``, any
   Python object type),
2. the intersphinx inventories, when ``sphinx.ext.intersphinx`` is loaded,
3. the extra inventories of ``kexport_inventories``.

A row with no ``ref`` tries ``<package>.<operator>``; a row whose object has
other public names (``aliases``) tries them after its ``ref``, so the row links
to the name the API docs document. A found name becomes a link in
``kexport_table["links"][row_id]`` (and, when it is an alias, the name in
``kexport_table["named"][row_id]``: the row lists its other names); a name not
found stays a code literal. No ``pending_xref`` is ever created, so nothing reaches Sphinx's
missing-reference machinery and ``-n -W`` stays green; unresolved names are
reported only when ``kexport_warn_unresolved`` is on, as one warning per page
(``kexport.unresolved``, silenced with ``suppress_warnings``).

This runs on ``doctree-resolved``, when a builder resolves a document for
writing, so it works in every builder (singlehtml's assembled document
included) and in parallel writes.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import NoUri
from sphinx.util import logging
from sphinx.util.inventory import InventoryFile
from sphinx.util.osutil import relative_uri

from ..nodes import kexport_page, kexport_table

logger = logging.getLogger(__name__)

UNRESOLVED_SHOWN = 20  # names listed in the warning before "and N more"
_DOTTED_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
_INVENTORIES_ATTR = "_kexport_inventories"


@dataclass(frozen=True)
class ExtraInventory:
    """One ``kexport_inventories`` entry: its base URL ("" = this site) and
    Python objects, name -> location."""

    name: str
    base: str
    objects: dict[str, str]


def _item_uri(item: Any) -> str:
    """Sphinx >= 8.2 gives objects with .uri; older ones (project, version, uri, display) tuples."""
    return item.uri if hasattr(item, "uri") else item[2]


def _python_objects(inventory: dict[str, dict[str, Any]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for objtype, entries in inventory.items():
        if objtype.startswith("py:"):
            for name, item in entries.items():
                found.setdefault(name, _item_uri(item))
    return found


def load_extra_inventories(app: Sphinx) -> None:
    """Read ``kexport_inventories`` once per build (builder-inited); a file that
    cannot be read is one warning, and its names simply stay unlinked."""
    loaded = []
    for name, target in app.config.kexport_inventories.items():
        base, path = ("", target) if isinstance(target, str) else (target[0], target[1])
        full = Path(app.confdir, path)
        try:
            with open(full, "rb") as stream:
                inventory = InventoryFile.load(stream, "", posixpath.join)
        except (OSError, ValueError) as exc:
            logger.warning("kexport_inventories[%r]: cannot read %s (%s); its names will not be linked.",
                           name, full, exc, type="kexport", subtype="inventory")
            continue
        loaded.append(ExtraInventory(name, base, _python_objects(inventory)))
    setattr(app, _INVENTORIES_ATTR, loaded)


def _intersphinx_objects(app: Sphinx) -> dict[str, str]:
    if "sphinx.ext.intersphinx" not in app.extensions:
        return {}
    inventory = getattr(app.env, "intersphinx_inventory", None) or {}
    return _python_objects(inventory)


def same_page(uri: str) -> str:
    """singlehtml puts every document on one page: ``#document-api#name`` -> ``#name``
    (what Sphinx's own fix_refuris does for its references)."""
    first = uri.find("#")
    last = uri.rfind("#")
    return uri[last:] if first != last else uri


class OperatorLinks:
    """Looks names up for one document being written."""

    def __init__(self, app: Sphinx, fromdocname: str):
        self.app = app
        self.builder = app.builder
        self.fromdocname = fromdocname
        self.own = app.env.get_domain("py").objects
        self.intersphinx = _intersphinx_objects(app)
        self.extra: list[ExtraInventory] = getattr(app, _INVENTORIES_ATTR, [])

    def _own(self, name: str) -> str | None:
        entry = self.own.get(name)
        if entry is None:
            return None
        docname, anchor = entry[0], entry[1]
        if docname == self.fromdocname:
            return "#" + anchor
        try:
            uri = self.builder.get_relative_uri(self.fromdocname, docname)
        except NoUri:  # e.g. a document left out of this LaTeX file
            return None
        return same_page(uri + "#" + anchor)

    def _site_root(self) -> str:
        """Relative path from the current page to the top of the site."""
        try:
            here = self.builder.get_target_uri(self.fromdocname)
        except NoUri:
            return ""
        prefix = relative_uri(here, "")
        return "" if prefix == "./" else prefix

    def _extra(self, name: str) -> str | None:
        for inventory in self.extra:
            location = inventory.objects.get(name)
            if location is None:
                continue
            if inventory.base:
                return posixpath.join(inventory.base, location)
            if self.builder.format != "html":
                return None  # a same-site page: only meaningful on the web
            return self._site_root() + location
        return None

    def find(self, name: str) -> str | None:
        return self._own(name) or self.intersphinx.get(name) or self._extra(name)

    def for_row(self, row: dict) -> tuple[str | None, str | None, str | None]:
        """(uri or None, the declared ref that did not resolve or None, the name found when it is one of the
        row's aliases or None): the ref first, then the object's other names in their order."""
        ref = row.get("ref") or ""
        if ref:
            for name in (ref, *row.get("aliases", ())):
                uri = self.find(name)
                if uri:
                    return uri, None, (name if name != ref else None)
            return None, ref, None
        guess = f"{row['package']}.{row['operator']}" if row.get("package") else row.get("operator", "")
        if _DOTTED_NAME.match(guess):
            return self.find(guess), None, None
        return None, None, None


def resolve_operator_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fill every table's ``links`` for the document being written."""
    pages = list(doctree.findall(kexport_page))
    if not pages:
        return
    links = OperatorLinks(app, docname)
    for page in pages:
        unresolved: list[str] = []
        for table in page.findall(kexport_table):
            found, named = {}, {}
            for row in table["rows"]:
                uri, missing, alias = links.for_row(row)
                if uri:
                    found[row["id"]] = uri
                if alias:
                    named[row["id"]] = alias
                if missing and missing not in unresolved:
                    unresolved.append(missing)
            table["links"] = found
            if named:  # absent on a page without aliases, as before them
                table["named"] = named
        if unresolved and app.config.kexport_warn_unresolved:
            _warn_unresolved(page, unresolved)


def _warn_unresolved(page: nodes.Element, names: list[str]) -> None:
    shown = ", ".join(names[:UNRESOLVED_SHOWN])
    if len(names) > UNRESOLVED_SHOWN:
        shown += f" and {len(names) - UNRESOLVED_SHOWN} more"
    logger.warning(
        "export-support: %d operator reference%s found no target and %s shown as code: %s",
        len(names), "" if len(names) == 1 else "s", "is" if len(names) == 1 else "are", shown,
        location=page, type="kexport", subtype="unresolved",
    )


def setup_xref(app: Sphinx) -> None:
    app.connect("builder-inited", load_extra_inventories)
