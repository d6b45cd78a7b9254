"""Doctree nodes of the export-support page.

Each node carries plain, picklable data (see ``model.payloads.row_payload``) so the
doctree survives the environment pickle and parallel builds, and each
builder decides how to render it.

Figures the browser script recounts when the reader filters are inline
elements with the classes ``kexport-count kexport-count--<key>``:

* ``<path>-<device>`` (``onnx-cpu``, ``export-cuda``, ...): the text is
  "supported / probed", or "—" when nothing was probed;
* ``pass-all-<device>``, ``pass-all``, ``operators``, ``onnx-operators``,
  ``rows``: the text is an integer.

Counts inside an element classed ``kexport-pkg--<package slug>`` (a summary
row, a package's lead sentence) are that package's; the others (in
``.kexport-cards``) are the page's.
"""

from __future__ import annotations

from docutils import nodes


class kexport_page(nodes.General, nodes.Element):
    """Wraps one directive's output. HTML: ``<div class="kexport" ...>``.

    Attributes: ``devices`` (list), ``columns`` (column payloads),
    ``page_id`` (unique in the document).
    """


class kexport_controls(nodes.General, nodes.Element):
    """The search box, filters and live count (HTML only; other builders skip it).

    Attributes: ``columns`` (column payloads), ``devices`` (list),
    ``total`` (row count).
    """


class kexport_table(nodes.General, nodes.Element):
    """One table of rows (a package section).

    Attributes: ``table_id``, ``title``, ``package``, ``section``,
    ``columns`` (column payloads), ``rows`` (row payloads), ``links``
    (row id -> resolved URI, filled at resolve time; absent id = not
    resolved, shown as a code literal).
    """


class kexport_reasons(nodes.General, nodes.Element):
    """The reason index of one page.

    Attributes: ``columns`` (column payloads), ``entries`` (list of
    ``{"id", "text", "examples", "counts": {key: n}, "total", "rows":
    [[row id, label], ...]}``).
    """


class kexport_fixes(nodes.General, nodes.Element):
    """The legend of fixes of one page (``parts.fix_legend``): each class the page names, its fix once.

    Attributes: ``entries`` (list of ``{"id", "anchor", "title", "fix"}`` of ``model.fixes.fix_payload``,
    each with ``legend``: its id on the page).
    """


class kexport_repro(nodes.General, nodes.Element):
    """Attributes: ``templates`` ({column key: code with slots})."""


class kexport_downloads(nodes.General, nodes.Element):
    """Links to the page's data. Attributes: ``name`` (file name without
    suffix), ``source`` (the snapshot path as written), ``bytes``, ``cases``;
    at resolve time ``json_uri`` and ``csv_uri`` (relative to the page, or
    absent where the builder publishes no files)."""


class kexport_badges(nodes.General, nodes.Element):
    """A badge strip, added at resolve time. Attributes: ``summary`` (a
    ``model.badge_summary.Summary``) and, for the HTML builders, ``refuri``
    (the row it links to); the HTML and text writers write it.

    Not a ``raw`` node: Sphinx's search indexer reads the text of raw HTML,
    so every API entry would match "CPU", "CUDA" or "yes", and stripping
    the tags of a thousand strips cost more than writing them."""


class kexport_speed_picture(nodes.General, nodes.Element):
    """One package's speed figures as an SVG dot plot (HTML only; the paragraph before it says the same
    in words). Attributes: ``package``, ``strips`` (``parts.speed_picture.strips``), ``sentences`` (the
    words, per strip), ``extent`` (the page's lowest and highest ratio: one axis for every picture of the
    page), ``svg_id``, ``key`` (the first picture: it says how to read the dots)."""
