"""The plain payloads the page's doctree nodes carry: picklable, builder-independent data made from the
page model, so that every builder renders the same columns and rows (``parts`` builds the nodes,
``writers`` renders them).
"""

from __future__ import annotations

from typing import Any, Iterable

from ...snapshot import DEVICE_LABELS, PATH_LABELS, PATHS
from ...snapshot.fix_classes import class_of
from ...snapshot.vocabulary import COMPILE
from ...snapshot.worklist import fullgraph_fails
from . import dynamic_batch, speed
from .page_model import Cell, PageModel, Row, slugify



def _speed_fields(cell: Cell) -> dict[str, str]:
    """The cell's speed mark (probe --speed; the figures in full: the row's ``speed_words``); nothing without it,
    so the payload is as before."""
    shown = speed.mark(cell.result)  # a figure's words, or "not timed" where the pass left a working cell
    if not shown:
        return {}
    fields: dict = {"speed": shown}
    figure = speed.figure(cell.result)
    if figure is not None:  # the verdict and ratio: the browser's speed filters and sort (tr[data-e], tr[data-x])
        fields.update(speed_verdict=figure.verdict, speed_ratio=figure.ratio)
    return fields

def column_payload(model: PageModel) -> list[dict]:
    return [{"key": f"{p}-{d}", "device": d, "path": p, "label": model.column_label(d, p),
             "path_label": PATH_LABELS[p], "device_label": DEVICE_LABELS[d]} for d, p in model.columns]


def display_columns(columns: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Column payloads in path-major order (ONNX CPU, ONNX CUDA, torch.export CPU, ...) so devices
    sit side by side: the order the HTML tables and the reason index show them in."""
    columns = list(columns)
    devices = list(dict.fromkeys(c["device"] for c in columns))
    rank = {p: i for i, p in enumerate(PATHS)}
    return sorted(columns, key=lambda c: (rank.get(c["path"], len(rank)), devices.index(c["device"])))


def row_payload(row: Row) -> dict:
    """Everything a builder needs to render one row, as plain data.

    The page may add optional keys (see ``assembly._decorator``):

    * ``reasons``: {a detail's text: the id of its entry in the reason index},
      for the details that are failure reasons (``:reasons: on``);
    * ``changes``: the cells that differ from the older snapshot
      (``:compare:``), ``[{"key": "onnx-cpu", "kind": "regressed" | "fixed" |
      "changed", "old": "ok", "new": "fail"}]`` (a status is None where the
      case or device was absent).
    """
    case = row.case
    shown = {d.text for d in row.details}  # a dynamic-batch mark's reason said there is not said again
    return {
        "id": row.id,
        "name": case.name,
        "package": case.package,
        "package_slug": slugify(case.package),
        "section": case.section,
        "operator": case.operator,
        "variant": case.variant,
        "ref": case.ref,
        "aliases": list(case.aliases),  # the object's other public names: shown on the row, found by the search
        "operator_key": case.operator_key,  # what the page counts as one operator
        "note": case.note,
        "exact": case.check,  # its outputs are compared with eager (not: a random operator, shapes only)
        "call": case.call,
        "inputs": [{"shape": list(shape), "dtype": dtype} for shape, dtype in case.inputs],
        "cells": [{
            "key": c.key, "device": c.device, "path": c.path, "status": c.result.status, "css": c.css,
            "text": c.text, "detail": c.result.detail, "stage": c.result.stage, "where": c.result.where,
            "where_code": c.result.where_code,
            # the classes of its own cause and of its dynamic result's (the Details' red texts: model.fixes)
            "fix_class": str(class_of(c.result.cause, c.result.where_code)),
            "dynamic_fix_class": str(class_of(c.result.dynamic.cause)) if c.result.dynamic else "",
            "graph_breaks": c.result.graph_breaks, "max_abs_diff": c.result.max_abs_diff,
            "compile_note": c.compile_note,
            "fullgraph_fails": c.path == COMPILE and c.result.supported and fullgraph_fails(c.result),
            "dynamic": dynamic_batch.code(c.result), "mark": c.mark,
            "mark_title": dynamic_batch.title(c.result, dynamic_batch.reason(c.result) in shown),
            **_speed_fields(c),
        } for c in row.cells],
        "details": [{"labels": d.labels, "text": d.text, "columns": list(d.columns)} for d in row.details],
        "stages": [{"labels": d.labels, "text": d.text, "columns": list(d.columns)} for d in row.stages],
        "where": list(row.where),
        "statements": [[w, row.statements[w]] for w in row.where if w in row.statements],
        "graph_breaks": dict(row.graph_breaks),
        "disagree": row.disagree,
        "failing": row.failing,
        "passes_all": row.passes_all,
        **({"speed_words": words} if (words := speed.row_words(row)) else {}),
    }
