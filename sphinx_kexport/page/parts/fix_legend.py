"""The "Fixes by class" part of the page: each failure class the page names, with its fix in words, once.

A red detail in a row and an entry of the reason index name their class (its title) and link to its entry
here (``kx-fix-<class>``, ``-N`` on the N-th page of a document), instead of repeating the fix in every
failing cell. Only the classes the page names are listed (``model.fixes.classes_used``), in the reference's
order. The node carries plain data; the HTML builders write it from ``templates/fixes.html.jinja`` (each title
links to the class's code shape on the reference page where the project has one, ``parts.fix_reference``),
every other builder gets a plain table (class, fix), built when the document is resolved.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ...snapshot.fix_classes import FixClass
from ..builders import is_html
from ..model.fixes import LEGEND_PREFIX, fix_payload
from ..nodes import kexport_fixes
from .ids import reserve_id
from .simple_tables import simple_table

SHOWN = ("id", "anchor", "title", "fix")  # of a class's payload: the code shape stays on the reference page
INTRO = ("The fix for each class of failure the page names, said once: a failing cell's reason and an entry of "
         "the failure reasons name their class, which links here.")


def build_fix_legend(document: nodes.document, classes: list[FixClass],
                     suffix: str = "") -> tuple[kexport_fixes, dict[str, str]]:
    """The node and {class id: its entry's id} (what a red detail links to)."""
    node = kexport_fixes()
    entries, ids = [], {}
    for fix in classes:
        # reserved in the document so no other id takes it; -N on later pages
        ids[str(fix)] = reserve_id(document, node, LEGEND_PREFIX + fix + suffix)
        payload = fix_payload(fix)
        entries.append({key: payload[key] for key in SHOWN} | {"legend": ids[str(fix)]})
    node["entries"] = entries
    return node, ids


def plain_table(node: kexport_fixes) -> nodes.table:
    rows = [(["kexport-fix"], [entry["title"], f"{entry['fix']}."]) for entry in node["entries"]]
    return simple_table(["Class", "Fix"], rows, [30, 70], ["kexport-fixes"])


def fixes_as_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if is_html(app):
        return
    for node in list(doctree.findall(kexport_fixes)):
        node.replace_self(plain_table(node))
