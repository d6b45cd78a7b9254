"""Element ids that are stable across builds and unique in the document.

A page's ids are derived from the snapshot (``export-support-<package>``), so
links to them survive a rebuild. When two export-support directives share a
document, the second page's ids get a ``-2`` suffix instead of clashing.
"""

from __future__ import annotations

from docutils import nodes


def unique_id(document: nodes.document, base: str) -> str:
    candidate, n = base, 1
    while candidate in document.ids:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def assign_id(document: nodes.document, node: nodes.Element, base: str) -> str:
    """Give ``node`` the id ``base`` (or ``base-N`` if taken) and register it."""
    node_id = unique_id(document, base)
    node["ids"].append(node_id)
    document.set_id(node)
    return node_id


def reserve_id(document: nodes.document, node: nodes.Element, base: str) -> str:
    """Reserve an id that a builder writes itself (a table's, a page's)."""
    node_id = unique_id(document, base)
    document.ids[node_id] = node
    return node_id
