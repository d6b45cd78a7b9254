"""``setup()``: what ``extensions = ["sphinx_kexport"]`` registers.

Three places decide everything builder-specific: ``NODE_VISITORS`` below
(every node, every builder family, one table), ``RESOLVE_STEPS`` (what
happens to a document once it is resolved, in order), and ``builders.py``
(the families themselves).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .._version import __version__
from .builders import NON_HTML_FORMATS, html_only, skip, transparent
from .nodes import (
    kexport_badges,
    kexport_controls,
    kexport_downloads,
    kexport_fixes,
    kexport_page,
    kexport_reasons,
    kexport_repro,
    kexport_speed_picture,
    kexport_table,
)
from .parts import badges, downloads, failure_reasons, fix_legend, xrefs
from .parts.badges import setup_api_badges
from .parts.directive import ExportSupportDirective
from .parts.downloads import setup_downloads
from .parts.fix_reference import setup_fix_reference
from .parts.toc import setup_toc
from .parts.xrefs import setup_xref
from .sphinx_env.assets import setup_assets
from .sphinx_env.config import register as register_config
from .sphinx_env.env_state import setup_env_state
from .writers import html, latex, lists, speed_svg, text

# Bump when the stored doctrees or environment data change shape, so Sphinx
# re-reads every document instead of unpickling stale nodes.
ENV_VERSION = 5  # 5: the page carries its legend of fixes (kexport_fixes, fix_ids)

NODE_VISITORS: dict[type[nodes.Element], dict[str, tuple[Any, Any]]] = {
    kexport_page: {"html": (html.visit_page, html.depart_page),
                   **{fmt: (transparent, transparent) for fmt in NON_HTML_FORMATS}},
    kexport_controls: html_only(html.visit_controls),
    kexport_table: {"html": (html.visit_table, None), "text": (text.visit_table, None),
                    "latex": (latex.visit_table, None),
                    # turned into lists by writers.lists at resolve time; skipping is the fallback
                    "man": (skip, None), "texinfo": (skip, None)},
    kexport_reasons: html_only(html.visit_reasons),  # a plain table elsewhere (resolve step)
    kexport_fixes: html_only(html.visit_fixes),  # a plain table elsewhere (resolve step)
    kexport_repro: html_only(html.visit_repro),
    kexport_downloads: html_only(html.visit_downloads),
    # the other builders have the sentence before it (parts.speed_picture)
    kexport_speed_picture: html_only(speed_svg.visit_speed_picture),
    # other builders get a plain paragraph instead of the node (badges.add_badges)
    kexport_badges: {**html_only(html.visit_badges), "text": (text.visit_badges, None)},
}

# doctree-resolved, in this order: links first (the badges and the man/texinfo lists show them).
RESOLVE_STEPS = (
    xrefs.resolve_operator_links,
    downloads.resolve_links,
    badges.add_badges,
    failure_reasons.reasons_as_tables,
    fix_legend.fixes_as_tables,
    lists.rows_as_lists,
)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for step in RESOLVE_STEPS:
        step(app, doctree, docname)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_design")
    register_config(app)
    app.add_directive("export-support", ExportSupportDirective)
    for node, visitors in NODE_VISITORS.items():
        app.add_node(node, **visitors)
    app.connect("doctree-resolved", resolve)
    setup_assets(app)
    setup_downloads(app)
    setup_api_badges(app)
    setup_xref(app)
    setup_env_state(app)
    setup_toc(app)
    setup_fix_reference(app)
    return {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
