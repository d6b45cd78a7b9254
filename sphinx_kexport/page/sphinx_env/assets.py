"""The page's stylesheet and script: the static folder once, the files only on pages that need them."""

from __future__ import annotations

from sphinx.application import Sphinx

from ..builders import is_html
from ..nodes import kexport_page
from .resources import static_dir

JS_FILE = "kexport.js"
CSS_FILE = "kexport.css"


def _add_static_path(app: Sphinx) -> None:
    if not is_html(app):
        return
    folder = str(static_dir())
    if folder not in app.config.html_static_path:
        app.config.html_static_path.append(folder)


def _add_page_assets(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if doctree is None or next(iter(doctree.findall(kexport_page)), None) is None:
        return
    app.add_css_file(CSS_FILE)
    app.add_js_file(JS_FILE, loading_method="defer")


def setup_assets(app: Sphinx) -> None:
    app.connect("builder-inited", _add_static_path)
    app.connect("html-page-context", _add_page_assets)
