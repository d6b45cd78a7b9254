"""Static renditions of the rows for the builders that are not HTML.

A docutils table of a thousand rows takes minutes in the text builder and
many seconds in LaTeX, so each format gets what reads well and builds fast:

* text: aligned columns written directly (path over device when there are
  several devices), reasons on an indented line below;
* LaTeX: a ``longtable`` written directly, every string escaped by the
  translator's own ``encode``;
* man and texinfo: a compact bullet list (one item per row) built as docutils
  nodes when the document is resolved, so those writers do their own escaping.

The search controls only make sense in a browser: every non-HTML builder
skips them, and the page wrapper is transparent.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .nodes import kexport_table

OPERATOR_WIDTH = 36  # text: longer names get a line of their own
TEXT_WIDTH = 78

_SPACES = re.compile(r"\s+")


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def operator_label(row: dict) -> str:
    return row["operator"] + (f" [{row['variant']}]" if row["variant"] else "")


def reason_text(row: dict) -> str:
    """"ONNX, torch.export: reason; torch.compile: other reason (at lib/x.py:12)"."""
    parts = [f"{d['labels']}: {_one_line(d['text'])}" for d in row["details"] if d["text"].strip()]
    text = "; ".join(parts)
    if row["where"]:
        text += (" " if text else "") + "(at " + ", ".join(row["where"]) + ")"
    return text


def cell_text(row: dict, cell: dict) -> str:
    """The cell's text, plus "[regressed]" / "[fixed]" when the page compares with an
    older snapshot (``:compare:``) and this cell changed that way."""
    for change in row.get("changes", ()):
        if change["key"] == cell["key"] and change["kind"] in ("regressed", "fixed"):
            return f"{cell['text']} [{change['kind']}]"
    return cell["text"]


def _cell_texts(row: dict) -> list[str]:
    if "changes" not in row:
        return [cell["text"] for cell in row["cells"]]
    return [cell_text(row, cell) for cell in row["cells"]]


def skip(self: nodes.NodeVisitor, node: nodes.Element) -> None:
    raise nodes.SkipNode


def transparent(self: nodes.NodeVisitor, node: nodes.Element) -> None:
    pass


# --------------------------------------------------------------------------
# text


def _text_headers(columns: list[dict]) -> list[list[str]]:
    """One header line, or two (path over device) when there are several devices."""
    devices = {column["device"] for column in columns}
    if len(devices) == 1:
        return [["Operator"] + [column["path_label"] for column in columns]]
    return [["Operator"] + [column["path_label"] for column in columns],
            [""] + [column["device_label"] for column in columns]]


def text_lines(node: kexport_table) -> list[str]:
    headers = _text_headers(node["columns"])
    rows = node["rows"]
    labels = [operator_label(row) for row in rows]
    op_width = min(OPERATOR_WIDTH, max([len(headers[0][0])] + [len(label) for label in labels]))
    widths = [op_width] + [
        max([len(header[i + 1]) for header in headers] + [len(_cell_texts(row)[i]) for row in rows])
        for i in range(len(node["columns"]))
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()

    lines = [line(header) for header in headers] + [line(["=" * w for w in widths])]
    for row, label in zip(rows, labels):
        cells = _cell_texts(row)
        if len(label) > op_width:
            lines.append(label)
            lines.append(line([""] + cells))
        else:
            lines.append(line([label] + cells))
        reason = reason_text(row)
        if reason:
            lines += textwrap.wrap(reason, TEXT_WIDTH, initial_indent="    ", subsequent_indent="    ",
                                   break_long_words=False, break_on_hyphens=False)
    return lines


def visit_table_text(self: Any, node: kexport_table) -> None:
    self.new_state(0)
    self.add_text("\n".join(text_lines(node)))
    self.end_state(wrap=False)
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# LaTeX


def _latex_operator(self: Any, row: dict, uri: str | None) -> str:
    code = r"\sphinxcode{\sphinxupquote{%s}}" % self.encode(row["operator"])
    if uri and uri.startswith("%"):
        # "%docname#anchor" is how the LaTeX builder spells an internal target.
        target = uri[1:].replace("#", ":", 1) if "#" in uri else uri[1:] + "::doc"
        code = self.hyperlink(target) + code + "}}"
    elif uri and re.match(r"^[a-z][a-z0-9+.-]*://", uri):
        code = r"\sphinxhref{%s}{%s}" % (self.encode_uri(uri), code)
    if row["variant"]:
        code += r" \sphinxcode{\sphinxupquote{[%s]}}" % self.encode(row["variant"])
    return code


def _latex_status(self: Any, cell: dict, row: dict | None = None) -> str:
    text = self.encode(cell["text"])
    text = r"\textbf{%s}" % text if cell["status"] in ("fail", "mismatch") else text
    if row is not None and "changes" in row:
        marked = cell_text(row, cell)
        if marked != cell["text"]:
            text += r" \emph{%s}" % self.encode(marked[len(cell["text"]):].strip())
    return text


def _latex_reason(self: Any, row: dict) -> str:
    parts = [r"\textbf{%s:} %s" % (self.encode(d["labels"]), self.encode(_one_line(d["text"])))
             for d in row["details"] if d["text"].strip()]
    text = "; ".join(parts)
    if row["where"]:
        where = ", ".join(r"\sphinxcode{\sphinxupquote{%s}}" % self.encode(w) for w in row["where"])
        text += (" " if text else "") + "(at " + where + ")"
    return text


def latex_longtable(self: Any, node: kexport_table) -> str:
    columns = node["columns"]
    n = len(columns)
    # Operator column, then equal status columns. Each of the n inner column
    # gaps costs 2 x 3pt (about 0.013 of a 470pt text block); 0.02 spare.
    op_share = 0.40 if n <= 3 else 0.22
    status_share = round((0.98 - op_share - n * 0.013) / n, 3)
    ragged = r">{\raggedright\arraybackslash}"
    spec = "@{}" + ragged + f"p{{{op_share}\\linewidth}}" + (ragged + f"p{{{status_share}\\linewidth}}") * n + "@{}"
    head = " & ".join([r"\sphinxstyletheadfamily Operator"] + [
        r"\sphinxstyletheadfamily " + self.encode(column["label"]) for column in columns]) + r" \\"
    out = [
        "",
        r"\begingroup\footnotesize\setlength{\tabcolsep}{3pt}",
        r"\begin{longtable}{%s}" % spec,
        r"\hline", head, r"\hline", r"\endfirsthead",
        r"\hline", head, r"\hline", r"\endhead",
        r"\hline", r"\endfoot",
    ]
    links = node.get("links", {})
    for row in node["rows"]:
        cells = [_latex_operator(self, row, links.get(row["id"]))]
        cells += [_latex_status(self, cell, row) for cell in row["cells"]]
        out.append(" & ".join(cells) + r" \\")
        reason = _latex_reason(self, row)
        if reason:
            out.append(r"\multicolumn{%d}{@{\hspace{1.5em}}p{0.9\linewidth}@{}}{\scriptsize %s} \\"
                       % (n + 1, reason))
    out += [r"\end{longtable}", r"\endgroup", ""]
    return "\n".join(out)


def visit_table_latex(self: Any, node: kexport_table) -> None:
    self.body.append(latex_longtable(self, node))
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# man and texinfo


def row_item(row: dict, columns: list[dict]) -> nodes.list_item:
    para = nodes.paragraph()
    para += nodes.literal(row["operator"], row["operator"])
    if row["variant"]:
        variant = f"[{row['variant']}]"
        para += nodes.Text(" ")
        para += nodes.literal(variant, variant)
    statuses = "; ".join(f"{column['label']}: {text}" for column, text in zip(columns, _cell_texts(row)))
    para += nodes.Text(" - " + statuses)
    item = nodes.list_item("", para)
    reason = reason_text(row)
    if reason:
        item += nodes.paragraph(reason, reason)
    return item


def row_list(node: kexport_table) -> nodes.bullet_list:
    listing = nodes.bullet_list(classes=["kexport-rows"])
    for row in node["rows"]:
        listing += row_item(row, node["columns"])
    return listing


def rows_as_lists(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """man and texinfo: each kexport_table becomes a bullet list before writing."""
    if app.builder.format not in ("man", "texinfo"):
        return
    for table in list(doctree.findall(kexport_table)):
        table.replace_self(row_list(table))


def setup_static(app: Sphinx) -> dict[str, tuple]:
    """Connect the man/texinfo conversion; return the non-HTML visitors for add_node."""
    # After xref has filled the links (priority 400).
    app.connect("doctree-resolved", rows_as_lists, priority=600)
    return {
        "page": {fmt: (transparent, transparent) for fmt in ("latex", "text", "man", "texinfo")},
        "controls": {fmt: (skip, None) for fmt in ("latex", "text", "man", "texinfo")},
        "table": {
            "latex": (visit_table_latex, None),
            "text": (visit_table_text, None),
            # Replaced by rows_as_lists before writing; skipping is the fallback.
            "man": (skip, None),
            "texinfo": (skip, None),
        },
    }
