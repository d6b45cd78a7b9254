"""``.. reuse-keys::``: the probe's "measure again?" keys as a table, drawn from the package's own records.

The rows are ``sphinx_kexport.probe.base.reuse.keys.KEYS`` (a module of the standard library only, importing
nothing of the probe: the docs build never imports torch), one per key: what it decides on, what it covers,
what changes it, what happens then, which module holds it, and the reasons ``--dry-run`` gives when it changed
(``REASONS``, their words with the fields in angle brackets). A key added to the module appears here at the next
build. Every cell is plain text, never interpreted as reStructuredText.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

HEADERS = ("Key", "Decides on", "Covers", "Changed by", "When it changes", "Held in", "What --dry-run says")
WIDTHS = (8, 10, 24, 16, 16, 12, 20)
FIELD = re.compile(r"{(\w+)[^}]*}")  # a reason's field in its words' template: shown as <field>


def key_rows() -> list[tuple[str, ...]]:
    """One row of plain text per key, in the module's order."""
    from sphinx_kexport.probe.base.reuse.keys import KEYS, reasons_of

    rows = []
    for key in KEYS:
        said = "; ".join("“" + FIELD.sub(r"<\1>", kind.words) + "”" for kind in reasons_of(key.id))
        rows.append((key.id, key.decides, key.covers, key.changed_by, key.on_change, key.held_in,
                     said or "(discovery says it in its progress lines)"))
    return rows


def _cell(text: str, literal: bool = False) -> nodes.entry:
    paragraph = nodes.paragraph()
    paragraph += nodes.literal(text, text) if literal else nodes.Text(text)
    paragraph["support_smartquotes"] = False
    entry = nodes.entry()
    entry += paragraph
    return entry


def _row(cells: tuple[str, ...]) -> nodes.row:
    row = nodes.row()
    for i, text in enumerate(cells):
        row += _cell(text, literal=i == 0)
    return row


class ReuseKeys(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        table = nodes.table(classes=["reuse-keys"])
        group = nodes.tgroup(cols=len(HEADERS))
        table += group
        group.extend(nodes.colspec(colwidth=width) for width in WIDTHS)
        head = nodes.thead()
        head += _row(HEADERS)
        body = nodes.tbody()
        body.extend(_row(cells) for cells in key_rows())
        group += head
        group += body
        return [table]


def setup(app):
    app.add_directive("reuse-keys", ReuseKeys)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
