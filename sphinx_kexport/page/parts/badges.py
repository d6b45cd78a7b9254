"""Status badges next to each operator's own API entry (``kexport_api_badges``).

When a document is read, the rows of its compatibility tables are recorded
in the environment by ``ref`` (merged across parallel readers). When any
document is written, every Python object description (autodoc or
``py:function`` / ``py:class`` / ``py:method``) whose full name appears in a
snapshot gets a compact strip of badges, one per path and device, linking to
its row on the compatibility page.

A badge says "yes" (every configuration of that operator is supported on
that path and device), "no" (none is), "2/3" (some are) or "n/a", in words
as well as colour; where the snapshot says whether the supported ones hold
at another batch size, "any batch" (all of them do) or "batch-specific"
(one or more work only at the traced batch size) follows. HTML builders get links; other builders get the same
strip as plain text. What a strip says is ``model.badge_summary``'s; the HTML and text writers write it. When a page
with a table is read again (its snapshot
changed), the documents holding badged entries are written again, so the
badges follow the data.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import NoUri

from .. import gc_pause
from ..builders import is_html
from ..model.badge_summary import Record, cell_code, one_line, summary
from ..nodes import kexport_badges, kexport_table
from ..sphinx_env.assets import CSS_FILE
from ..sphinx_env.env_state import BADGE_ROWS, doc_store, forget_on_read, read_now
from .xrefs import same_page

ASSETS_FLAG = "kexport_badges"  # set on a resolved doctree that got badges: the page needs the stylesheet
PY_OBJTYPES = {"function", "class", "method", "classmethod", "staticmethod", "attribute", "property",
               "exception", "data"}


INDEX = "_kexport_badge_index"  # an attribute of the app: the store by ref, made once per write


def rows_by_ref(app) -> dict[str, list[Record]]:
    """The documents' rows (``env_state.BADGE_ROWS``, by docname) indexed by ref, once reading is done."""
    index = getattr(app, INDEX, None)
    if index is None:
        index = {}
        for docname, rows in doc_store(app.env, BADGE_ROWS).items():
            for ref, position, row_id, columns, codes in rows:
                index.setdefault(ref, []).append((docname, position, row_id, columns, codes))
        setattr(app, INDEX, index)
    return index


@forget_on_read
def _forget_index(app) -> None:
    if hasattr(app, INDEX):
        delattr(app, INDEX)


def record_rows(app, doctree: nodes.document) -> None:
    """doctree-read: remember which rows of this document describe which ref."""
    if not app.config.kexport_api_badges:
        return
    rows: list[tuple[str, int, str, tuple[tuple[str, str], ...], str]] = []
    position = 0
    for table in doctree.findall(kexport_table):
        # a row has one cell per column, in the table's column order (model.page_model.build_model)
        columns = tuple((c["path"], c["device"]) for c in table["columns"])
        for row in table["rows"]:
            position += 1
            ref = row["ref"] or f"{row['package']}.{row['operator']}"
            codes = "".join([cell_code(c) for c in row["cells"]])
            rows.append((ref, position, row["id"], columns, codes))
    if rows:
        doc_store(app.env, BADGE_ROWS)[app.env.docname] = rows


def _rows_in_order(rows: list[Record]) -> list[Record]:
    """Serial and parallel builds merge the store in different orders; sort it (by docname, position)."""
    return sorted(rows)


def _row_uri(app, fromdocname: str, row: Record) -> str | None:
    if not is_html(app):
        return None
    docname, _position, row_id, _columns, _codes = row
    if docname == fromdocname:
        return "#" + row_id
    try:
        uri = app.builder.get_relative_uri(fromdocname, docname)
    except NoUri:
        return None
    return same_page(uri + "#" + row_id)


def add_badges(app, doctree: nodes.document, fromdocname: str) -> None:
    """doctree-resolved: put a badge strip at the top of each surveyed object's description."""
    if not app.config.kexport_api_badges:
        return
    store = rows_by_ref(app)
    if not store:
        return
    with gc_pause.paused():  # a summary per entry, short-lived; see gc_pause.py
        _add_badges(app, doctree, fromdocname, store)


def _surveyed_descs(app, doctree: nodes.document, store: dict[str, list[Record]]) -> list[addnodes.desc]:
    """The descriptions in this doctree of objects a snapshot surveys (each once).

    Found through the Python domain's inventory and the doctree's ids, not by
    walking every node of an API page of thousands of entries. Builders that
    assemble one doctree from many documents (singlehtml, LaTeX, texinfo,
    man) keep only the root document's ids, so those are walked. Each strip
    is independent, so the order does not matter."""
    if app.builder.format not in ("html", "text") or app.builder.name == "singlehtml":
        return list(doctree.findall(addnodes.desc))
    objects = app.env.get_domain("py").objects
    found: dict[int, addnodes.desc] = {}
    for fullname in store:
        entry = objects.get(fullname)
        sig = doctree.ids.get(entry.node_id) if entry is not None else None
        if isinstance(sig, addnodes.desc_signature) and isinstance(sig.parent, addnodes.desc):
            found.setdefault(id(sig.parent), sig.parent)
    return list(found.values())


def _add_badges(app, doctree: nodes.document, fromdocname: str, store: dict[str, list[Record]]) -> None:
    for desc in _surveyed_descs(app, doctree, store):
        if desc.get("domain") != "py" or desc.get("objtype") not in PY_OBJTYPES:
            continue
        # Only the description's own signatures and content: a class's methods are descs of their own.
        for sig in (child for child in desc.children if isinstance(child, addnodes.desc_signature)):
            fullname = ".".join(p for p in (sig.get("module"), sig.get("fullname")) if p)
            rows = store.get(fullname)
            if not rows:
                continue
            rows = _rows_in_order(rows)
            content = next((c for c in desc.children if isinstance(c, addnodes.desc_content)), None)
            if content is None:
                break
            uri = _row_uri(app, fromdocname, rows[0])
            if uri is not None:
                content.insert(0, kexport_badges(summary=summary(rows), refuri=uri))
                doctree[ASSETS_FLAG] = True
            elif app.builder.format == "text":
                content.insert(0, kexport_badges(summary=summary(rows)))
            else:  # one text node: a thousand entries cost the LaTeX and other writers nothing
                text = one_line(summary(rows))
                content.insert(0, nodes.paragraph(text, text, classes=["kexport-badge-line"]))
            break


def rewrite_badged_docs(app, env) -> list[str]:
    """env-get-updated: when a page with tables was read again, write the documents
    that hold badged entries again too (their badges may have changed)."""
    if not app.config.kexport_api_badges:
        return []
    read = read_now(app)
    store = rows_by_ref(app)
    table_docs = set(doc_store(env, BADGE_ROWS))
    if not (read & table_docs):
        return []
    objects = env.get_domain("py").objects
    docs = {objects[name][0] for name in store if name in objects}
    return sorted(docs - read)


def add_badge_assets(app, pagename, templatename, context, doctree) -> None:
    """The badges' stylesheet on pages with badges (pages with a table get it anyway)."""
    if doctree is not None and doctree.get(ASSETS_FLAG):
        app.add_css_file(CSS_FILE)


def setup_api_badges(app) -> None:
    """The config value itself is registered with the others (``sphinx_env.config``)."""
    app.connect("doctree-read", record_rows)
    app.connect("env-get-updated", rewrite_badged_docs)
    app.connect("html-page-context", add_badge_assets)
