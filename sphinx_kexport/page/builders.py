"""Which builders get what: the one place that names the builder families.

HTML builders render every node (``writers.html``); the text and LaTeX
builders write the tables directly (``writers.text``, ``writers.latex``); man
and texinfo get the rows as bullet lists built at resolve time
(``writers.lists``). Nodes only a browser can use are skipped
everywhere else, and the page wrapper is transparent there.
"""

from __future__ import annotations

from typing import Any, Callable

from docutils import nodes

NON_HTML_FORMATS = ("latex", "text", "man", "texinfo")

Visitor = Callable[[Any, nodes.Element], None]


def skip(self: nodes.NodeVisitor, node: nodes.Element) -> None:
    raise nodes.SkipNode


def transparent(self: nodes.NodeVisitor, node: nodes.Element) -> None:
    pass


def html_only(visit: Visitor) -> dict[str, tuple[Visitor, Visitor | None]]:
    """``add_node`` keywords for a node that renders in HTML and is skipped by every other builder."""
    return {"html": (visit, None), **{fmt: (skip, None) for fmt in NON_HTML_FORMATS}}


def is_html(app: Any) -> bool:
    return app.builder.format == "html"


def reading_for_html(env: Any) -> bool:
    """While a directive runs: whether the running builder writes HTML (``env.app`` is
    deprecated; Sphinx keeps the builder's class on the environment)."""
    return getattr(getattr(env, "_builder_cls", None), "format", "html") == "html"
