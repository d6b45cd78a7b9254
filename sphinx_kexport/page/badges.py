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
strip as plain text. When a page with a table is read again (its snapshot
changed), the documents holding badged entries are written again, so the
badges follow the data.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import NoUri

from ..snapshot import DEVICE_LABELS, PATH_LABELS, PATHS, STATUSES, SUPPORTED
from . import gc_pause
from .assets import CSS_FILE
from .builders import is_html
from .env_state import BADGE_ROWS, doc_store, forget_on_read, read_now
from .nodes import kexport_badges, kexport_table
from .xrefs import same_page

ASSETS_FLAG = "kexport_badges"  # set on a resolved doctree that got badges: the page needs the stylesheet
TEXT_WIDTH = 64  # the text writer's 70 columns, less the indent of an entry's content
PY_OBJTYPES = {"function", "class", "method", "classmethod", "staticmethod", "attribute", "property",
               "exception", "data"}




def visit_badges(self, node: kexport_badges) -> None:
    self.body.append(node["html"])
    raise nodes.SkipNode


def visit_badges_text(self, node: kexport_badges) -> None:
    # a text-builder raw node does the same, with a Text child more per entry
    self.new_state(0)
    self.add_text(node["text"])
    self.end_state(wrap=False)
    raise nodes.SkipNode



# One record per table row, small to pickle with the environment:
# (docname, position on its page, row id, columns, codes). ``columns`` is the
# table's ((path, device), ...), one tuple object shared by its rows (pickle
# writes it once); ``codes`` has a letter per column: "y" supported, "a"
# supported and holds at any batch size, "s" supported only at the traced
# batch size, "n" probed but not supported, "-" not probed.
Record = tuple[str, int, str, tuple[tuple[str, str], ...], str]
CODES = {status: "y" if status in SUPPORTED else "-" if status == "n/a" else "n" for status in STATUSES}
BATCH_CODES = {"o": "a", "s": "s"}  # a supported cell's dynamic-batch code (dynamic_batch.CODE) -> its badge code


def cell_code(cell: dict) -> str:
    code = CODES.get(cell["status"], "n")
    return BATCH_CODES.get(cell.get("dynamic", "-"), code) if code == "y" else code


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
        # a row has one cell per column, in the table's column order (model.build_model)
        columns = tuple((c["path"], c["device"]) for c in table["columns"])
        for row in table["rows"]:
            position += 1
            ref = row["ref"] or f"{row['package']}.{row['operator']}"
            codes = "".join([cell_code(c) for c in row["cells"]])
            rows.append((ref, position, row["id"], columns, codes))
    if rows:
        doc_store(app.env, BADGE_ROWS)[app.env.docname] = rows


Summary = tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]


def _summary(rows: list[Record]) -> Summary:
    """Per path: (path label, worst state, ((state, mark text, title), ...)) -- one mark per device.

    A mark says "yes" (every configuration supported), "no" (none), "2/3"
    (some) or "n/a" (nothing probed), prefixed with the device when there
    are several."""
    return _summary_of(tuple((columns, codes) for *_, columns, codes in rows))


@lru_cache(maxsize=4096)
def _summary_of(tables: tuple[tuple[tuple[tuple[str, str], ...], str], ...]) -> Summary:
    # Cached: most operators share one of a few outcomes (everything "yes", say).
    tally: dict[tuple[str, str], list[int]] = {}  # [supported, probed, any batch, batch-specific]
    for columns, codes in tables:
        for column, code in zip(columns, codes):
            both = tally.setdefault(column, [0, 0, 0, 0])
            both[0] += code in "yas"
            both[1] += code != "-"
            both[2] += code == "a"
            both[3] += code == "s"
    devices = sorted({device for _, device in tally}, key=lambda d: (d != "cpu", d))
    multi = len(devices) > 1
    found = []
    for path in PATHS:
        marks = []
        for device in devices:
            both = tally.get((path, device))
            if both is None:
                continue
            good, probed, any_batch, static = both
            if not probed:
                state, word = "na", "n/a"
            elif good == probed:
                state, word = ("partial" if static else "ok"), "yes"
            elif good == 0:
                state, word = "fail", "no"
            else:
                state, word = "partial", f"{good}/{probed}"
            title = f"{DEVICE_LABELS[device]}: {good} of {probed} probed configurations supported"
            if static:
                word += ", batch-specific"
                title += f"; {static} of them only at the traced batch size"
            elif good and any_batch == good:
                word += ", any batch"
                title += ", all at any batch size"
            marks.append((state, (f"{DEVICE_LABELS[device]} " if multi else "") + word, title))
        if marks:
            states = {state for state, _, _ in marks}
            worst = next(s for s in ("fail", "partial", "ok", "na") if s in states)
            found.append((PATH_LABELS[path], worst, tuple(marks)))
    return tuple(found)


HREF_SLOT = "\x00"  # where a strip's link goes in its cached markup (no label holds a NUL)


def badge_html(rows: list[Record], refuri: str) -> str:
    """The strip as HTML (one node per entry: a thousand entries cost milliseconds).

    ``<p class="kexport-badge-line"><span class="kexport-badges"><a class="kexport-badge
    kexport-badge--<worst>" href=... title=...><span class="kexport-badge-path">ONNX</span>
    <span class="kexport-badge-mark kexport-badge--ok">CPU yes</span> ...</a> ...</span></p>``"""
    return _strip_html(_summary(rows)).replace(HREF_SLOT, escape(refuri))


@lru_cache(maxsize=4096)
def _strip_html(summary: Summary) -> str:
    parts = []
    for label, worst, marks in summary:
        title = escape(f"{label} — " + "; ".join(t for *_, t in marks))
        inner = " ".join(f'<span class="kexport-badge-mark kexport-badge--{state}">{escape(text)}</span>'
                         for state, text, _ in marks)
        parts.append(f'<a class="kexport-badge kexport-badge--{worst} reference internal" href="{HREF_SLOT}" '
                     f'title="{title}"><span class="kexport-badge-path">{escape(label)}</span> {inner}</a>')
    return f'<p class="kexport-badge-line"><span class="kexport-badges">{" ".join(parts)}</span></p>\n'


def _groups(summary: Summary) -> list[str]:
    """One group per path: "ONNX: CPU yes, CUDA no"."""
    return [f"{label}: " + ", ".join(text for _, text, _ in marks) for label, _, marks in summary]


@lru_cache(maxsize=4096)
def _one_line(summary: Summary) -> str:
    """The strip as plain text: "ONNX: CPU yes, CUDA no · torch.export: CPU yes, CUDA yes · ..."."""
    return " · ".join(_groups(summary))


@lru_cache(maxsize=4096)
def _wrapped(summary: Summary) -> str:
    # wrapped here: the text writer's own wrapping measures every word's display
    # width and, over a thousand entries, cost a fifth of the build
    return "\n".join(wrap_groups(_groups(summary), TEXT_WIDTH))


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
                content.insert(0, kexport_badges(html=badge_html(rows, uri)))
                doctree[ASSETS_FLAG] = True
            elif app.builder.format == "text":
                content.insert(0, kexport_badges(text=_wrapped(_summary(rows))))
            else:  # one text node: a thousand entries cost the LaTeX and other writers nothing
                text = _one_line(_summary(rows))
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
    """The config value itself is registered with the others (config.py)."""
    app.connect("doctree-read", record_rows)
    app.connect("env-get-updated", rewrite_badged_docs)
    app.connect("html-page-context", add_badge_assets)
