"""The "Failure reasons" part of the page (the directive's ``:reasons:`` option).

One entry per cause record, or per normalised reason where the cause was read from words
(``model.reason_groups``), most frequent first, worded by one concrete instance (its text, operator and
library line), with
its fix class (whose fix the page's legend of fixes says, ``parts.fix_legend``), and its count per
path and device and in total. Each entry's id is
``kx-reason-<hash of the normalised text>`` (``-N`` on the N-th page of a
document), stable across builds; each row's reason links back to it (the
row payload's ``reasons``: {detail text: entry id}).

The node carries plain data. The HTML builders render it (``writers.html``):
a compact table whose entries open, with ``<details>``, on the list of
affected rows (links, so it works without JavaScript), plus a button the
browser script shows to filter the rows by that reason (``?kx-reason=<id>``).
Every other builder gets a plain docutils table (reason, counts per column,
total), built here when the document is resolved.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ...snapshot.vocabulary import COMPILE, EXPORT, ONNX
from ..builders import is_html
from ..model.page_model import PageModel, slugify
from ..model.payloads import column_payload, display_columns
from ..model.fixes import fix_payload
from ..model.reason_groups import build_index, row_reason_ids
from ..nodes import kexport_reasons
from .ids import reserve_id
from .simple_tables import simple_table

EXAMPLES_SHOWN = 3  # concrete texts listed under an entry


def build_reasons(document: nodes.document, model: PageModel, row_suffix: str = "", version: str = "",
                  older: bool = False) -> tuple[kexport_reasons | None, dict[str, dict[str, str]]]:
    """The node (None when nothing fails) and, per row id, concrete reason -> entry id. ``version``: on a
    page across torch versions, the torch version the index counts; ``older``: not the newest (its entry
    ids end in ``-v<version slug>``; HTML shows the index of the version the reader chose, the other
    builders only the newest's)."""
    index = build_index(model)
    if not index:
        return None, {}
    node = kexport_reasons()
    actual: dict[str, str] = {}
    entries = []
    for entry in index:
        # Reserved in the document so no other id takes it; -N on later pages.
        tag = f"-v{slugify(version)}" if older else ""
        actual[entry.id] = reserve_id(document, node, entry.id + row_suffix + tag)
        entries.append({
            "id": actual[entry.id],
            "text": entry.text,
            "by_cause": entry.by_cause,
            "example": entry.example,
            "instance": entry.instance,
            "fixes": [fix_payload(f) for f in entry.fix_classes],
            "examples": entry.examples[:EXAMPLES_SHOWN],
            "more": max(0, len(entry.examples) - EXAMPLES_SHOWN),
            "counts": dict(entry.per_column),
            "total": entry.total,
            "rows": [[row_id + row_suffix, entry.row_labels[row_id]] for row_id in entry.rows],
        })
    node["entries"] = entries
    node["columns"] = column_payload(model)
    if version:  # a page across torch versions (a page of one snapshot keeps its doctree as it was)
        node["version"] = version
        node["older"] = older
    links = {row_id: {text: actual[rid] for text, rid in reasons.items()}
             for row_id, reasons in row_reason_ids(model).items()}
    return node, links


def link_details(payload: dict[str, Any], reasons: dict[str, str]) -> None:
    """``payload["reasons"]``: {a detail's text: the id of its reason index entry},
    for the details of the row that are failure reasons."""
    found = {d["text"]: reasons[d["text"]] for d in payload["details"] if d["text"] in reasons}
    if found:
        payload["reasons"] = found


# --------------------------------------------------------------------------
# every other builder: a plain table


# Short headers keep the plain table narrow enough for text and PDF.
_PLAIN_PATH = {ONNX: ONNX.label, EXPORT: str(EXPORT), COMPILE: str(COMPILE)}


def _plain_label(column: dict, columns: list[dict]) -> str:
    path = _PLAIN_PATH.get(column["path"], column["path_label"])
    return f"{path} {column['device_label']}" if len({c["device"] for c in columns}) > 1 else path


def plain_table(node: kexport_reasons) -> nodes.table:
    columns = display_columns(node["columns"])
    header = ["Reason"] + [_plain_label(c, node["columns"]) for c in columns] + ["Total"]
    rows = []
    for entry in node["entries"]:
        fixes = "; ".join(f["title"] for f in entry["fixes"])  # the fix itself: the legend of fixes
        instance = f" (e.g. {entry['instance']})" if entry["instance"] else ""
        cells: list = [f"{entry['example']}{instance}. Fix: {fixes}."]
        cells += [str(entry["counts"].get(c["key"], 0) or "") for c in columns]
        cells.append(str(entry["total"]))
        rows.append((["kexport-reason"], cells))
    widths = [40] + [max(6, len(label)) for label in header[1:-1]] + [6]
    return simple_table(header, rows, widths, ["kexport-reasons"])


def reasons_as_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if is_html(app):
        return
    for node in list(doctree.findall(kexport_reasons)):
        if node.get("older"):  # an older torch version's index: only HTML lets the reader choose it
            node.parent.remove(node)
        else:
            node.replace_self(plain_table(node))
