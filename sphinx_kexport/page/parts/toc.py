"""Put the package sections in the document's table of contents.

Sphinx's TOC collector only descends into sections that are direct children
of sections; ours sit inside the ``kexport_page`` wrapper, so it skips them
and the theme's "On this page" would not list the packages. After the
collector has run, this adds their entries at the place the page occupies.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from ..nodes import kexport_page


def _entries(container: nodes.Element, docname: str) -> list[nodes.list_item]:
    items = []
    for section in container.children:
        if not isinstance(section, nodes.section) or not section["ids"]:
            continue
        title = section[0].astext() if len(section) and isinstance(section[0], nodes.title) else ""
        reference = nodes.reference("", "", nodes.Text(title), internal=True, refuri=docname,
                                    anchorname="#" + section["ids"][0])
        item = nodes.list_item("", addnodes.compact_paragraph("", "", reference))
        children = _entries(section, docname)
        if children:
            item += nodes.bullet_list("", *children)
        items.append(item)
    return items


def _count(items: list[nodes.list_item]) -> int:
    return sum(len(list(item.findall(nodes.reference))) for item in items)


def _owner(page: nodes.Element) -> tuple[nodes.Element, nodes.Element]:
    """The section (or document) the page sits in, and the page's ancestor among its children."""
    child, parent = page, page.parent
    while parent is not None and not isinstance(parent, (nodes.section, nodes.document)):
        child, parent = parent, parent.parent
    return parent, child


def _owner_list(toc: nodes.bullet_list, owner: nodes.Element, doctree: nodes.document) -> nodes.bullet_list | None:
    """The TOC list that holds ``owner``'s sub-sections (created if needed)."""
    if isinstance(owner, nodes.document):
        return toc
    first = next(iter(doctree.findall(nodes.section)), None)
    # The collector gives the document's first section the anchor "".
    anchor = "" if owner is first else "#" + owner["ids"][0]
    for reference in toc.findall(nodes.reference):
        if reference.get("anchorname") == anchor:
            item = reference.parent.parent
            for child in item.children:
                if isinstance(child, nodes.bullet_list):
                    return child
            sub = nodes.bullet_list()
            item += sub
            return sub
    return None


def add_page_sections(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    toc = env.tocs.get(docname)
    if toc is None:
        return
    for page in doctree.findall(kexport_page):
        items = _entries(page, docname)
        owner, child = _owner(page)
        if not items or owner is None:
            continue
        target = _owner_list(toc, owner, doctree)
        if target is None:
            continue
        before = owner.children[: owner.index(child)]
        position = sum(1 for node in before if isinstance(node, nodes.section))
        for offset, item in enumerate(items):
            target.insert(position + offset, item)
        env.toc_num_entries[docname] = env.toc_num_entries.get(docname, 0) + _count(items)


def setup_toc(app: Sphinx) -> None:
    # After Sphinx's TocTreeCollector (priority 500) has built the document's TOC.
    app.connect("doctree-read", add_page_sections, priority=600)
