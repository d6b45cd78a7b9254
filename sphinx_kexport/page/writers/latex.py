"""The LaTeX builder's writer: each table as a ``longtable``, written directly.

Every string is escaped by the translator's own ``encode``; a docutils table
of a thousand rows takes many seconds in LaTeX.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

from ...snapshot.vocabulary import FAILING
from ..nodes import kexport_table
from .plain_words import cell_text, fix_words, one_line, status_text, version_lines, version_words, where_words


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
    text = r"\textbf{%s}" % text if cell["status"] in FAILING else text
    for mark in (cell.get("mark"), cell.get("speed")):  # the dynamic-batch mark, the speed mark (--speed)
        if mark:
            text += r" {\scriptsize %s}" % self.encode(f"({mark})")
    if row is not None and "changes" in row:
        marked = cell_text(row, cell)
        if marked != status_text(cell):
            text += r" \emph{%s}" % self.encode(marked[len(status_text(cell)):].strip())
    elif row is not None and version_words(row, cell["key"]):
        text += r" \emph{%s}" % self.encode(f"({version_words(row, cell['key'])})")
    return text


def _latex_reason(self: Any, row: dict, columns: list[dict]) -> str:
    parts = [r"\textbf{%s:} %s" % (self.encode(d["labels"]), self.encode(one_line(d["text"]) + fix_words(row, d)))
             for d in row["details"] if d["text"].strip()]
    text = "; ".join(parts)
    if row["where"]:
        where = ", ".join(r"\sphinxcode{\sphinxupquote{%s}}" % self.encode(w) for w in where_words(row))
        text += (" " if text else "") + "(at " + where + ")"
    for line in version_lines(row, columns):
        text += ("; " if text else "") + self.encode(line)
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
        reason = _latex_reason(self, row, columns)
        if reason:
            out.append(r"\multicolumn{%d}{@{\hspace{1.5em}}p{0.9\linewidth}@{}}{\scriptsize %s} \\"
                       % (n + 1, reason))
    out += [r"\end{longtable}", r"\endgroup", ""]
    return "\n".join(out)


def visit_table(self: Any, node: kexport_table) -> None:
    self.body.append(latex_longtable(self, node))
    raise nodes.SkipNode
