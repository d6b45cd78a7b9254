"""Small inline nodes shared by the page components.

``count``: a number the browser script recomputes when the reader filters
the rows; it carries ``kexport-count kexport-count--<key>`` (see nodes.py for
the keys and the text format).
``status_pill``: a status as the table shows it.
``batch_mark``: a dynamic-batch mark as the table shows it under a status.
"""

from __future__ import annotations

from docutils import nodes

from ..model.words import status_css


def count(key: str, value: object) -> nodes.inline:
    text = str(value)
    return nodes.inline(text, text, classes=["kexport-count", f"kexport-count--{key}"])


def status_pill(status: str, text: str) -> nodes.inline:
    return nodes.inline(text, text, classes=["kx-status", f"kx-status--{status_css(status)}"])


def batch_mark(status: str, text: str) -> nodes.inline:
    return nodes.inline(text, text, classes=["kx-batch", f"kx-batch--{status.replace('/', '')}"])
