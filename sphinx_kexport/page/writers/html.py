"""The HTML builders' writer: every node of the page, and the API badge strips.

The tables are rendered from ``templates/table.html.jinja`` (autoescaped:
every snapshot string is untrusted) into compact, server-rendered HTML that
reads well without JavaScript. ``static/kexport.js`` then enhances it in
place; what it filters and counts by sits in attributes, so it never
interprets cell markup:

* ``div.kexport[data-cols]``: the column keys, in the order of each row's
  status codes (``data-labels``: their labels, ``|``-separated);
* ``div.kexport[data-supported][data-failing]...``: what the script knows of
  the statuses, their codes and the words of the filters that name one
  (``script_data``); it has no table of its own;
* ``div.kexport[style]``: the column headers as CSS custom properties, the
  labels of a row's cells when the stylesheet stacks them on a narrow screen
  (see ``stacked_labels``);
* ``table[data-p][data-q]``: package slug; package and section search text;
* ``tr[data-s]``: one status code per column (the status record's ``code``);
  left out when every column is ok, the common case;
  ``tr[data-o]``: distinct-operator bookkeeping (see ``OperatorMarks``);
  ``tr[data-c]``: one change code per column (see ``CHANGE_CODE``), only on
  rows that changed since the snapshot of ``:compare:``;
  ``div.kexport[data-versions]`` (a page across torch versions): the versions,
  oldest first, ``|``-separated; ``tr[data-v]``: the row's status codes in
  each version, oldest first, one column-long run each (``x`` throughout: that
  version lacks the case), only on rows whose versions differ.

A cell whose versions differ says so in words ("since torch 2.13.0", see
``model.version_marks``) and carries a strip, a ``<details>`` whose summary
lists each version's status and whose body each version's detail; the script
copies the chosen version's status from the strip into the cell
(``.kx-cur``).

Optional parts, present when the core puts their data in the row payload:
a failure reason links to its entry in the reason index (``reasons``:
detail text -> entry id) and names its fix class, a link to the class's
entry in the page's legend of fixes (the page's ``fix_ids``: class id ->
entry id; the fix itself is said there once), a cell that regressed or was fixed carries a
marker (``changes``), and a failing row with a recorded ``call`` gets a
"Reproduce" box the script fills from the page's repro templates.

Search covers the table's text, the row id (a slug of the case name) and
the visible text of the operator and details cells (operator, variant, the
object's other public names under "also:", note, reasons, stage, location): what a reader sees is what a search finds,
and no text is sent twice.

Bytes matter at thousands of rows: an ok cell, by far the most common, is
the plain word (``<td>yes</td>``, coloured by the stylesheet), every other
status a custom element such as ``<kx-f>no</kx-f>`` (a styled inline
element, like a span with a class, at half the bytes): the pills mark what
needs attention; a cell's speed mark is one too (``<kx-sp>2.2× faster</kx-sp>``), its figures in full said
once per row, in the Details. Attributes that would be empty are left out.

The other nodes are written from ``templates/*.html.jinja`` too (the reason
index, the "Reproduce" templates, the download links) or, for the badge strips,
as cached markup. The nodes are registered, with these visitors for ``html=``,
in ``extension.py``; the stylesheet and script come from ``sphinx_env.assets``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Any

from docutils import nodes

from ...snapshot import PATHS
from ...snapshot.vocabulary import DYNAMIC_OK, OK_BREAKS, UNCOUNTED, status
from .. import gc_pause
from ..model.badge_summary import Summary
from ..model.comparison import MARKER_TEXT, cell_marker, marker_title
from ..model.dynamic_batch import NO_MARK_CODE
from ..model.fixes import detail_fixes
from ..model.payloads import display_columns
from ..nodes import kexport_badges, kexport_downloads, kexport_fixes, kexport_reasons, kexport_repro
from ..sphinx_env.env_state import fix_page
from .html_templates import render
from .plain_words import also_names, version_words
from .script_data import FILTER_WORDS, NO_SPEED, PLAIN, SPEED_CODE, SPEED_WORDS, script_data, speed_script_data

# A status's one character in ``tr[data-s]`` and its pill element ``<kx-CODE>`` (none for ok) is its record's
# ``code``. ``tr[data-y]``: each cell's dynamic-batch mark (``dynamic_batch.code``: o any batch, s batch N only,
# f dynamic fails, - none); left out when no cell of the row has one.
# ``tr[data-c]``: how each cell changed since the compared snapshot ("-": not at all).
CHANGE_CODE = {"regressed": "r", "fixed": "f", "changed": "c"}
DETAILS_LABEL = "Details"  # the last column's header


def column_headers(columns: list[dict[str, Any]]) -> list[str]:
    """Each status column's header in one line: "torch.compile · CUDA", or the path alone on one device."""
    multi = len({c["device"] for c in columns}) > 1
    return [f"{c['path_label']} · {c['device_label']}" if multi else c["path_label"] for c in columns]


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string; anything but letters, digits and a few harmless signs as a hex
    escape, so that no (untrusted) label can end the string or the declaration."""
    return '"' + "".join(c if c.isalnum() or c in " .·()-_/:" else f"\\{ord(c):x} " for c in text) + '"'


def stacked_labels(columns: list[dict[str, Any]]) -> str:
    """The page container's ``style``: the headers as custom properties, ``--kx-l1`` ... for the status
    columns in display order and ``--kx-ld`` for the details. When a table's rows stack on a narrow
    screen, the stylesheet shows them above each cell. Set once per page, not as an attribute per cell:
    rows stay as small as they are."""
    labels = [f"--kx-l{i}:{css_string(label)}" for i, label in enumerate(column_headers(columns), 1)]
    return ";".join(labels + [f"--kx-ld:{css_string(DETAILS_LABEL)}"])


def _header_groups(columns: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(path label, number of device columns) for the first header row."""
    groups: list[tuple[str, int]] = []
    for col in columns:
        if groups and groups[-1][0] == col["path_label"]:
            groups[-1] = (col["path_label"], groups[-1][1] + 1)
        else:
            groups.append((col["path_label"], 1))
    return groups


def _differing_keys(cells: dict[str, dict[str, Any]], columns: list[dict[str, Any]]) -> set[str]:
    """Cells of a path whose devices disagree (supported on one, failing on another)."""
    keys: set[str] = set()
    for path in PATHS:
        probed = [cells[c["key"]] for c in columns
                  if c["path"] == path and cells[c["key"]]["status"] not in UNCOUNTED]
        if len({status(c["status"]).supported for c in probed}) > 1:
            keys.update(c["key"] for c in probed)
    return keys


def search_key(text: str) -> str:
    """Lower-case, every run of non-letters/digits -> "-": what search compares.

    The script normalises typed terms the same way, so "warp_perspective",
    "warp-perspective" and "Warp.Perspective" all match.
    """
    return re.sub(r"[\W_]+", "-", text.lower()).strip("-")


def _stage_text(row: dict[str, Any]) -> str:
    """``stage: capture`` when one stage goes with the one reason, else each stage with its columns."""
    stages = row["stages"]
    if not stages:
        return ""
    if len(stages) == 1 and [d["labels"] for d in row["details"]] == [stages[0]["labels"]]:
        return "stage: " + stages[0]["text"]
    return "stage: " + "; ".join(f"{s['text']} ({s['labels']})" for s in stages)


def _change_codes(row: dict[str, Any], columns: list[dict[str, Any]]) -> str:
    kinds = {change["key"]: change["kind"] for change in row.get("changes", ())}
    codes = "".join(CHANGE_CODE.get(kinds.get(col["key"], ""), "-") for col in columns)
    return "" if codes == "-" * len(codes) else codes


def _repro(row: dict[str, Any]) -> str:
    """The call a "Reproduce" box shows: only for rows that fail somewhere and recorded one."""
    call = row.get("call") or ""
    return call.rstrip() if call.strip() and row["failing"] else ""


def _strip(history: dict[str, Any] | None, key: str, versions: list[str]) -> list[dict[str, Any]]:
    """The per-version strip of one cell, each entry with its version's index and status code."""
    cell = history["cells"].get(key) if history else None
    if not cell:
        return []
    return [dict(entry, index=versions.index(entry["version"]), code=status(entry["status"]).code,
                 plain=entry["status"] == PLAIN) for entry in cell["strip"]]


def _version_codes(row: dict[str, Any], columns: list[dict[str, Any]], codes: str, versions: list[str]) -> str:
    """``tr[data-v]``: the status codes of every version, oldest first ("x" * columns: a version without
    the case); "" when the row reads the same in every version."""
    history = row.get("versions")
    if not history:
        return ""
    runs = []
    for version in versions:
        if version not in history["present"]:
            runs.append("x" * len(columns))
            continue
        run = ""
        for col, code in zip(columns, codes):  # a cell without a strip reads the same in every version
            strip = history["cells"].get(col["key"], {}).get("strip", ())
            run += next((status(s["status"]).code for s in strip if s["version"] == version), code)
        runs.append(run)
    return "".join(runs)


def _status_cell(row: dict[str, Any], cell: dict[str, Any], differs: bool, since: str,
                 versions: list[str]) -> dict[str, Any]:
    breaks = cell.get("graph_breaks") or 0
    # "yes, 2 breaks" says it already; a cell fullgraph=True decided says what the default compile does; any
    # other status with breaks gets them added.
    extra = cell.get("compile_note") or (
        f"{breaks} break" + ("" if breaks == 1 else "s") if breaks and cell["status"] != OK_BREAKS else "")
    change = cell_marker(row, cell["key"])
    mark = cell.get("mark", "")
    return {
        "code": status(cell["status"]).code, "plain": cell["status"] == PLAIN, "text": cell["text"],
        "differs": differs, "extra": extra,
        # the dynamic-batch mark: <kx-yo> any batch, <kx-ys> batch 2 only, <kx-yf> dynamic fails
        "mark": mark, "mark_code": cell.get("dynamic", NO_MARK_CODE),
        "mark_title": cell.get("mark_title", "") if mark and cell.get("dynamic") != DYNAMIC_OK.code else "",
        "speed": cell.get("speed", ""),  # probe --speed; the figures in full: the row's speed_words
        "change": change and change["kind"],
        "change_text": change and MARKER_TEXT[change["kind"]],
        "change_title": change and marker_title(change, since),
        "version_words": version_words(row, cell["key"]),
        "strip": _strip(row.get("versions"), cell["key"], versions),
    }


def _row_view(row: dict[str, Any], columns: list[dict[str, Any]], links: dict[str, str],
              operator_mark: str | None, device_labels: list[str], since: str,
              versions: list[str], named: dict[str, str]) -> dict[str, Any]:
    cells = {c["key"]: c for c in row["cells"]}
    differing = _differing_keys(cells, columns) if row["disagree"] else set()
    status_cells = [_status_cell(row, cells[col["key"]], col["key"] in differing, since, versions)
                    for col in columns]
    href = links.get(row["id"])
    codes = "".join(c["code"] for c in status_cells)
    batch = "".join(c["mark_code"] for c in status_cells)
    history = row.get("versions")
    raw = [cells[col["key"]] for col in columns]
    speed_codes = "".join(SPEED_CODE[c["speed_verdict"]] if "speed_verdict" in c else NO_SPEED for c in raw)
    return {
        # the speed filters and sort (probe --speed): only on a row with a figure
        "speed_codes": "" if speed_codes == NO_SPEED * len(speed_codes) else speed_codes,
        "speed_ratios": " ".join(f"{c['speed_ratio']:.4g}" if "speed_ratio" in c else NO_SPEED for c in raw),
        "version_codes": _version_codes(row, columns, codes, versions),
        "speed_words": row.get("speed_words", ""),
        "only_in": ", ".join(history["present"]) if history and history["absent"] else "",
        "id": row["id"],
        "codes": "" if codes == PLAIN.code * len(codes) else codes,  # all ok: attribute left out
        "batch": "" if batch == NO_MARK_CODE * len(batch) else batch,  # no dynamic-batch mark: attribute left out
        "changes": _change_codes(row, columns),
        "operator_mark": operator_mark,
        "disagree": row["disagree"],
        "disagree_label": " ≠ ".join(device_labels),
        "href": href,
        "external": bool(href) and "://" in href,
        "operator": row["operator"],
        "variant": row["variant"],
        "also": also_names(row, named),
        "note": row["note"],
        "cells": status_cells,
        "details": [dict(d, fixes=detail_fixes(d, cells)) for d in row["details"]],
        "reasons": row.get("reasons") or {},
        "stage": _stage_text(row),
        "where": row["where"],
        "statements": row.get("statements", []),
        "name": row["name"],
        "call": _repro(row),
        "exact": row.get("exact", True),
        "checks": row.get("repro_checks", []),  # :repro-check: (parts/repro_check.py)
    }


class OperatorMarks:
    """``tr[data-o]``: lets the script count distinct operators among visible rows.

    Operators are numbered per page in order of first appearance, and the
    common cases cost no bytes: a new operator has no attribute, the same
    operator as the previous row has ``=``, and only an operator met again
    in a later table carries its number. One instance per page, fed its
    tables in document order (the order the script reads them).
    """

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, ...], int] = {}
        self.previous: int | None = None

    def marks(self, rows: list[dict[str, Any]]) -> list[str | None]:
        out: list[str | None] = []
        for row in rows:
            key = tuple(row["operator_key"])
            if key not in self.numbers:
                self.numbers[key] = len(self.numbers)
                out.append(None)
            else:
                out.append("=" if self.numbers[key] == self.previous else str(self.numbers[key]))
            self.previous = self.numbers[key]
        return out


def render_table(node: nodes.Element, operators: OperatorMarks, since: str = "",
                 versions: list[str] | None = None, fix_ids: dict[str, str] | None = None) -> str:
    """``since``: the compared snapshot's date, for the change markers' titles; ``versions``: the page's
    torch versions, oldest first (a page across versions); ``fix_ids``: {class id: its entry in the page's
    legend of fixes} (``parts.fix_legend``; a class without one is named without a link)."""
    versions = versions or []
    columns = display_columns(node["columns"])
    links = node.get("links") or {}
    device_labels = list(dict.fromkeys(c["device_label"] for c in columns))
    marks = operators.marks(node["rows"])
    named = node.get("named") or {}
    rows = [_row_view(row, columns, links, mark, device_labels, since, versions, named)
            for row, mark in zip(node["rows"], marks)]
    package_slug = node["rows"][0]["package_slug"] if node["rows"] else ""
    table_text = " ".join(search_key(t) for t in (node.get("package", ""), node.get("section", ""),
                                                     node.get("title", "")) if t)
    return render("table.html.jinja",
        table_id=node["table_id"], title=node.get("title", ""), package_slug=package_slug,
        table_search=table_text, columns=columns, groups=_header_groups(columns),
        multi_device=len(device_labels) > 1, rows=rows, details_label=DETAILS_LABEL, fix_ids=fix_ids or {},
    )


def render_controls(node: nodes.Element) -> str:
    columns = display_columns(node["columns"])
    devices = list(dict.fromkeys((c["device"], c["device_label"]) for c in columns))

    def paths_of(keys) -> list[tuple[str, str]]:
        """(path, label) of the paths with a column among ``keys``, in page order."""
        return [(p, next(c["path_label"] for c in columns if c["path"] == p)) for p in PATHS
                if any(c["path"] == p and c["key"] in keys for c in columns)]

    return render("controls.html.jinja",
        paths=paths_of([c["key"] for c in columns]),
        devices=devices, total=node["total"], since=node.get("since", ""), reasons=bool(node.get("reasons")),
        traced_batch_only=bool(node.get("traced_batch_only")), timeouts=bool(node.get("timeouts")),
        versions=list(reversed(node.get("versions", []))),  # the newest first: the one shown
        speed_paths=paths_of(node.get("speed_keys", [])),
        speed_columns=[(c["key"], label) for c, label in zip(columns, column_headers(columns))
                       if c["key"] in node.get("speed_keys", [])],
        **FILTER_WORDS, **SPEED_WORDS,
    )


# --------------------------------------------------------------------------
# visitors (registered for html= by extension.py): the page, its controls, its tables


def fix_reference_href(translator) -> str:
    """The fix classes' reference page relative to the page being written, or "" where no document of the
    project holds ``.. kexport-fix-classes::`` (the class titles then stay text)."""
    builder = translator.builder
    target = fix_page(builder.env)
    if target is None:
        return ""
    return builder.get_relative_uri(builder.current_docname, target)


def visit_page(self, node: nodes.Element) -> None:
    self._kexport_operators = OperatorMarks()
    self._kexport_since = node.get("since", "")
    self._kexport_versions = node.get("versions", [])
    self._kexport_fix_ids = node.get("fix_ids", {})
    columns = display_columns(node["columns"])
    attrs = {"data-cols": " ".join(c["key"] for c in columns),
             "data-labels": "|".join(c["label"] for c in columns),  # for the "Reproduce" snippets
             "style": stacked_labels(columns),  # the column labels of stacked rows (kexport.css)
             **script_data(), **(speed_script_data() if node.get("speed") else {})}
    if node.get("versions"):
        attrs["data-versions"] = "|".join(node["versions"])
    if node.get("page_id") and node["page_id"] not in node["ids"]:
        attrs["ids"] = [node["page_id"]]
    self.body.append(self.starttag(node, "div", "", CLASS="kexport", **attrs))


def depart_page(self, node: nodes.Element) -> None:
    self.body.append("</div>\n")


def visit_controls(self, node: nodes.Element) -> None:
    self.body.append(render_controls(node))
    raise nodes.SkipNode



def visit_table(self, node: nodes.Element) -> None:
    operators = getattr(self, "_kexport_operators", None) or OperatorMarks()  # a table outside a page
    with gc_pause.paused():  # a view per row, short-lived; see gc_pause.py
        self.body.append(render_table(node, operators, getattr(self, "_kexport_since", ""),
                                      getattr(self, "_kexport_versions", []),
                                      getattr(self, "_kexport_fix_ids", {})))
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the reason index (parts.failure_reasons): a compact table whose entries open, with
# <details>, on the list of affected rows, plus a button the browser script shows to filter
# the rows by that reason (``?kx-reason=<id>``)


def render_reasons(node: kexport_reasons, fix_ids: dict[str, str] | None = None) -> str:
    """``fix_ids``: as ``render_table``'s, where each entry's classes link."""
    columns = [{"key": c["key"], "label": _short_label(c, node["columns"])}
               for c in display_columns(node["columns"])]
    return render("reasons.html.jinja", entries=node["entries"], columns=columns, version=node.get("version", ""),
                  older=bool(node.get("older")), fix_ids=fix_ids or {})


def _short_label(column: dict, columns: list[dict]) -> str:
    multi = len({c["device"] for c in columns}) > 1
    return f"{column['path_label']} ({column['device_label']})" if multi else column["path_label"]


def visit_reasons(self, node: kexport_reasons) -> None:
    self.body.append(render_reasons(node, getattr(self, "_kexport_fix_ids", {})))
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the legend of fixes (parts.fix_legend): each class the page names, its fix once; the title links to
# the class's code shape on the reference page where the project has one


def render_fixes(node: kexport_fixes, fix_href: str = "") -> str:
    return render("fixes.html.jinja", entries=node["entries"], fix_href=fix_href)


def visit_fixes(self, node: kexport_fixes) -> None:
    self.body.append(render_fixes(node, fix_reference_href(self)))
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the "Reproduce" templates (parts.repro): one inert <template> per page


def render_repro(node: kexport_repro) -> str:
    return render("repro.html.jinja", templates=node["templates"]) + "\n"


def visit_repro(self, node: kexport_repro) -> None:
    self.body.append(render_repro(node))
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the download links (parts.downloads); no links where the builder published no files


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def visit_downloads(self, node: kexport_downloads) -> None:
    if node.get("json_uri"):
        self.body.append(render("downloads.html.jinja", json_uri=node["json_uri"], csv_uri=node["csv_uri"],
                                            size=human_size(node["bytes"]), cases=node["cases"]) + "\n")
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# the badge strip of an API entry (parts.badges)


HREF_SLOT = "\x00"  # where a strip's link goes in its cached markup (no label holds a NUL)


def badge_html(summary: Summary, refuri: str) -> str:
    """The strip as HTML (one node per entry: a thousand entries cost milliseconds).

    ``<p class="kexport-badge-line"><span class="kexport-badges"><a class="kexport-badge
    kexport-badge--<worst>" href=... title=...><span class="kexport-badge-path">ONNX</span>
    <span class="kexport-badge-mark kexport-badge--ok">CPU yes</span> ...</a> ...</span></p>``"""
    return _strip_html(summary).replace(HREF_SLOT, escape(refuri))


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


def visit_badges(self, node: kexport_badges) -> None:
    self.body.append(badge_html(node["summary"], node["refuri"]))
    raise nodes.SkipNode
