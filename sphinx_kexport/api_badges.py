"""Status badges next to each operator's own API entry (``kexport_api_badges``).

When a document is read, the rows of its compatibility tables are recorded
in the environment by ``ref`` (merged across parallel readers). When any
document is written, every Python object description (autodoc or
``py:function`` / ``py:class`` / ``py:method``) whose full name appears in a
snapshot gets a compact strip of badges, one per path and device, linking to
its row on the compatibility page.

A badge says "yes" (every configuration of that operator is supported on
that path and device), "no" (none is), "2/3" (some are) or "n/a", in words
as well as colour. HTML builders get links; other builders get the same
strip as plain text. When a page with a table is read again (its snapshot
changed), the documents holding badged entries are written again, so the
badges follow the data.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import NoUri

from . import collector
from .nodes import kexport_table
from .snapshot import DEVICE_LABELS, PATH_LABELS, PATHS, SUPPORTED
from .env_data import _READ_NOW
from .html import CSS_FILE
from .xref import _same_page

ENV_KEY = "kexport_badge_rows"
ASSETS_FLAG = "kexport_badges"  # set on a resolved doctree that got badges: the page needs the stylesheet
TEXT_WIDTH = 64  # the text writer's 70 columns, less the indent of an entry's content
PY_OBJTYPES = {"function", "class", "method", "classmethod", "staticmethod", "attribute", "property",
               "exception", "data"}


class kexport_badges(nodes.General, nodes.Element):
    """A badge strip in HTML, its markup ready in ``html`` (added at resolve time, HTML builders only).

    Not a ``raw`` node: Sphinx's search indexer reads the text of raw HTML,
    so every API entry would match "CPU", "CUDA" or "yes", and stripping
    the tags of a thousand strips cost more than writing them."""


def visit_badges(self, node: kexport_badges) -> None:
    self.body.append(node["html"])
    raise nodes.SkipNode


def _no_depart(self, node: nodes.Element) -> None:
    pass


def _store(env) -> dict[str, list[dict[str, Any]]]:
    if not hasattr(env, ENV_KEY):
        setattr(env, ENV_KEY, {})
    return getattr(env, ENV_KEY)


def record_rows(app, doctree: nodes.document) -> None:
    """doctree-read: remember which rows of this document describe which ref."""
    if not app.config.kexport_api_badges:
        return
    docname = app.env.docname
    store = _store(app.env)
    position = 0
    for table in doctree.findall(kexport_table):
        for row in table["rows"]:
            position += 1
            ref = row["ref"] or f"{row['package']}.{row['operator']}"
            store.setdefault(ref, []).append({
                "docname": docname, "id": row["id"], "position": position,
                # tuples of strings: the garbage collector stops tracking them
                "cells": tuple((c["key"], c["path"], c["device"], c["status"]) for c in row["cells"]),
            })


def purge(app, env, docname: str) -> None:
    store = _store(env)
    for ref in list(store):
        store[ref] = [r for r in store[ref] if r["docname"] != docname]
        if not store[ref]:
            del store[ref]


def merge(app, env, docnames, other) -> None:
    store = _store(env)
    for ref, rows in _store(other).items():
        store.setdefault(ref, []).extend(r for r in rows if r["docname"] in docnames)


def _badge_state(statuses: list[str]) -> str:
    probed = [s for s in statuses if s != "n/a"]
    if not probed:
        return "na"
    good = sum(s in SUPPORTED for s in probed)
    if good == len(probed):
        return "ok"
    return "fail" if good == 0 else "partial"


def _summary(rows: list[dict[str, Any]]) -> list[tuple[str, str, list[tuple[str, str, str]]]]:
    """Per path: (path label, worst state, [(state, mark text, title)]) -- one mark per device.

    A mark says "yes" (every configuration supported), "no" (none), "2/3"
    (some) or "n/a" (nothing probed), prefixed with the device when there
    are several."""
    per_column: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in rows:
        for _key, path, device, status in row["cells"]:
            per_column[(path, device)].append(status)
    devices = sorted({device for _, device in per_column}, key=lambda d: (d != "cpu", d))
    multi = len(devices) > 1
    found = []
    for path in PATHS:
        marks = []
        for device in devices:
            statuses = per_column.get((path, device))
            if statuses is None:
                continue
            state = _badge_state(statuses)
            probed = [s for s in statuses if s != "n/a"]
            good = sum(s in SUPPORTED for s in probed)
            word = {"ok": "yes", "fail": "no", "partial": f"{good}/{len(probed)}", "na": "n/a"}[state]
            marks.append((state, (f"{DEVICE_LABELS[device]} " if multi else "") + word,
                          f"{DEVICE_LABELS[device]}: {good} of {len(probed)} probed configurations supported"))
        if marks:
            states = {state for state, _, _ in marks}
            worst = next(s for s in ("fail", "partial", "ok", "na") if s in states)
            found.append((PATH_LABELS[path], worst, marks))
    return found


def badge_html(rows: list[dict[str, Any]], refuri: str) -> str:
    """The strip as HTML (one raw node per entry: a thousand entries cost milliseconds).

    ``<p class="kexport-badge-line"><span class="kexport-badges"><a class="kexport-badge
    kexport-badge--<worst>" href=... title=...><span class="kexport-badge-path">ONNX</span>
    <span class="kexport-badge-mark kexport-badge--ok">CPU yes</span> ...</a> ...</span></p>``"""
    href = escape(refuri)
    parts = []
    for label, worst, marks in _summary(rows):
        title = escape(f"{label} — " + "; ".join(t for *_, t in marks))
        inner = " ".join(f'<span class="kexport-badge-mark kexport-badge--{state}">{escape(text)}</span>'
                         for state, text, _ in marks)
        parts.append(f'<a class="kexport-badge kexport-badge--{worst} reference internal" href="{href}" '
                     f'title="{title}"><span class="kexport-badge-path">{escape(label)}</span> {inner}</a>')
    return f'<p class="kexport-badge-line"><span class="kexport-badges">{" ".join(parts)}</span></p>\n'


def badge_groups(rows: list[dict[str, Any]]) -> list[str]:
    """One group per path: "ONNX: CPU yes, CUDA no"."""
    return [f"{label}: " + ", ".join(text for _, text, _ in marks) for label, _, marks in _summary(rows)]


def badge_text(rows: list[dict[str, Any]]) -> str:
    """The strip as plain text: "ONNX: CPU yes, CUDA no · torch.export: CPU yes, CUDA yes · ..."."""
    return " · ".join(badge_groups(rows))


def wrap_groups(groups: list[str], width: int) -> list[str]:
    """Lines of at most ``width`` columns (a longer group keeps its own line), groups joined by " · "."""
    lines: list[str] = []
    for group in groups:
        if lines and len(lines[-1]) + 3 + len(group) + 2 <= width:
            lines[-1] += " · " + group
        else:
            if lines:
                lines[-1] += " ·"
            lines.append(group)
    return lines


def _rows_in_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Serial and parallel builds merge the store in different orders; sort it."""
    return sorted(rows, key=lambda r: (r["docname"], r.get("position", 0)))


def _row_uri(app, fromdocname: str, row: dict[str, Any]) -> str | None:
    if app.builder.format != "html":
        return None
    if row["docname"] == fromdocname:
        return "#" + row["id"]
    try:
        uri = app.builder.get_relative_uri(fromdocname, row["docname"])
    except NoUri:
        return None
    return _same_page(uri + "#" + row["id"])


def add_badges(app, doctree: nodes.document, fromdocname: str) -> None:
    """doctree-resolved: put a badge strip at the top of each surveyed object's description."""
    if not app.config.kexport_api_badges:
        return
    store = _store(app.env)
    if not store:
        return
    with collector.paused():  # a summary per entry, short-lived; see collector.py
        _add_badges(app, doctree, fromdocname, store)


def _surveyed_descs(app, doctree: nodes.document, store: dict[str, list[dict[str, Any]]]) -> list[addnodes.desc]:
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


def _add_badges(app, doctree: nodes.document, fromdocname: str, store: dict[str, list[dict[str, Any]]]) -> None:
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
                content.insert(0, kexport_badges(html=badge_html(rows, uri)))
                doctree[ASSETS_FLAG] = True
            elif app.builder.format == "text":
                # wrapped here: the text writer's own wrapping measures every word's display
                # width and, over a thousand entries, cost a fifth of the build
                text = "\n".join(wrap_groups(badge_groups(rows), TEXT_WIDTH))
                content.insert(0, nodes.raw(text, text, format="text", classes=["kexport-badge-line"]))
            else:  # one text node: a thousand entries cost the LaTeX and other writers nothing
                text = badge_text(rows)
                content.insert(0, nodes.paragraph(text, text, classes=["kexport-badge-line"]))
            break


def rewrite_badged_docs(app, env) -> list[str]:
    """env-get-updated: when a page with tables was read again, write the documents
    that hold badged entries again too (their badges may have changed)."""
    if not app.config.kexport_api_badges:
        return []
    read_now = getattr(app, _READ_NOW, set())
    store = _store(env)
    table_docs = {r["docname"] for rows in store.values() for r in rows}
    if not (read_now & table_docs):
        return []
    objects = env.get_domain("py").objects
    docs = {objects[name][0] for name in store if name in objects}
    return sorted(docs - read_now)


def add_badge_assets(app, pagename, templatename, context, doctree) -> None:
    """The badges' stylesheet on pages with badges (pages with a table get it anyway)."""
    if doctree is not None and doctree.get(ASSETS_FLAG):
        app.add_css_file(CSS_FILE)


def setup_api_badges(app) -> None:
    """The config value itself is registered with the others (config.py)."""
    app.add_node(kexport_badges, html=(visit_badges, _no_depart))
    app.connect("doctree-read", record_rows)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("env-get-updated", rewrite_badged_docs)
    # After xref (400); before man/texinfo conversion does not matter: badges sit in API entries.
    app.connect("doctree-resolved", add_badges, priority=500)
    app.connect("html-page-context", add_badge_assets)
