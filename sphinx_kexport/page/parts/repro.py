"""The "Reproduce" snippets of failing cells, on the HTML page.

A failing (``fail`` / ``mismatch``) cell whose case carries a ``call`` (the
probe records it from the case's registration) offers the exact Python that
reproduces it: the export or compile call on the case's inputs
(``repro.repro_code``). To keep the page small, the code is not written
once per cell: the page carries one template per column in an inert
``<template class="kx-repro-tpl">`` element (this node; one ``<pre
data-k="onnx-cpu">`` per column), each failing row carries its ``call`` once, and the browser script
fills the template when the reader opens the row's "Reproduce" box, with a
copy button per failing cell. Without JavaScript the box shows the call.

The HTML writer writes the node (``writers.html``); other builders skip it.
"""

from __future__ import annotations

from ...snapshot.repro import repro_templates
from ...snapshot.vocabulary import DEFAULT_OPSET
from ..model.page_model import PageModel
from ..nodes import kexport_repro


def build_repro(model: PageModel) -> kexport_repro | None:
    if not any(row.case.call.strip() and row.failing for row in model.rows):
        return None
    opsets = {}
    for device in model.devices:
        try:
            opsets[device] = int(model.snapshot.environments[device].get("opset", DEFAULT_OPSET))
        except (TypeError, ValueError):
            opsets[device] = DEFAULT_OPSET
    node = kexport_repro()
    node["templates"] = repro_templates(model.columns, opsets)
    return node
