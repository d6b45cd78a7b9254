"""``setup()``: what ``extensions = ["sphinx_kexport"]`` registers.

The directive, its config values, the nodes with a visitor per builder
family, build-time cross-references, the environment data that makes the
extension parallel-safe, and the HTML assets (``sphinx_kexport.html``).
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from . import __version__, html
from .api_badges import setup_api_badges
from .config import register as register_config
from .directive import ExportSupportDirective
from .downloads import setup_downloads
from .env_data import setup_env_data
from .nodes import kexport_controls, kexport_page, kexport_table
from .reasons_section import setup_reasons
from .render_static import setup_static
from .repro_page import setup_repro
from .toc import setup_toc
from .xref import setup_xref

# Bump when the stored doctrees or environment data change shape, so Sphinx
# re-reads every document instead of unpickling stale nodes.
ENV_VERSION = 3  # 3: the API badges keep compact row records


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_design")
    register_config(app)
    app.add_directive("export-support", ExportSupportDirective)

    # HTML visitors come from sphinx_kexport.html, the others from render_static.
    static = setup_static(app)
    app.add_node(kexport_page, html=(html.visit_page, html.depart_page), **static["page"])
    app.add_node(kexport_controls, html=(html.visit_controls, html.depart_controls), **static["controls"])
    app.add_node(kexport_table, html=(html.visit_table, html.depart_table), **static["table"])
    html.setup_html(app)
    # Beyond the table: reason index, repro snippets, data downloads, API badges.
    setup_reasons(app)
    setup_repro(app)
    setup_downloads(app)
    setup_api_badges(app)

    setup_xref(app)
    setup_env_data(app)
    setup_toc(app)
    return {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
