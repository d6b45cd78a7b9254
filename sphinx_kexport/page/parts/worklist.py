"""The "Where to fix first" part of the page (the directive's ``:worklist:`` option).

The library lines ranked by the distinct operators, then cells, they block, per path, with the class of the
failure and its fix (``snapshot.worklist``, the ranking ``probe worklist`` prints). On a page across torch
versions, one table per version, newest first, an older version's lines saying whether they still block in
the newest. Plain docutils nodes, so every builder renders it; each operator links to its first row, and
every snapshot string is a text node (escaped by the writers).
"""

from __future__ import annotations

from docutils import nodes

from ...snapshot.vocabulary import PATH_LABELS
from ...snapshot.worklist import Line, Ranking
from ..model.page_model import PageModel
from .simple_tables import simple_table

DEFAULT_LINES = 10  # ``:worklist: on``


def _operators(line: Line, row_ids: dict[str, str]) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for (_, operator), case in line.operators.items():
        if out:
            out.append(nodes.Text(", "))
        row_id = row_ids.get(case.name)
        if row_id:
            out.append(nodes.reference("", operator, internal=True, refid=row_id))
        else:
            out.append(nodes.Text(operator))
    return out


def _fix(line: Line) -> list[nodes.Node]:
    fix = line.fix_class
    return [nodes.strong("", fix.title), nodes.Text(f": {fix.fix}. "),
            nodes.emphasis("", f"As reported: {line.example}")]


def _line(line: Line) -> list[nodes.Node]:
    """The library line, and the statement there on one line where the probe read it."""
    out: list[nodes.Node] = [nodes.literal("", line.where)]
    if line.code:
        out += [nodes.Text(" "), nodes.literal("", " ".join(line.code.split()), classes=["kexport-worklist-code"])]
    return out


def _table(ranking: Ranking, newest: Ranking, lines: int, row_ids: dict[str, str]) -> nodes.table:
    older = ranking is not newest
    # static/kexport.css sizes these columns by position (the fix column's floor): keep the two in step
    header = ["#", "Library line", "Path", "Operators", "Cells", "Class and fix", "Operators blocked"]
    widths = [3, 24, 8, 6, 5, 34, 20]
    if older:
        header.append(f"Blocks in torch {newest.torch}")
        widths.append(6)
    keys = newest.keys()
    rows = []
    for number, line in enumerate(ranking.lines[:lines], 1):
        cells: list = [str(number), _line(line), PATH_LABELS[line.path],
                       str(len(line.operators)), str(line.cells), _fix(line), _operators(line, row_ids)]
        if older:
            cells.append("yes" if line.key in keys else "no")
        rows.append((["kexport-worklist-row"], cells))
    return simple_table(header, rows, widths, ["kexport-worklist"])


def build_worklist(rankings: list[Ranking], model: PageModel, lines: int, row_suffix: str = "") -> list[nodes.Node]:
    """The part's nodes (none when no line blocks anything); ``rankings`` newest first."""
    if not any(r.lines for r in rankings):
        return []
    row_ids = {row.case.name: row.id + row_suffix for row in model.rows}
    newest = rankings[0]
    out: list[nodes.Node] = [nodes.paragraph(
        "", "The library lines that block the most operators, per path: a line blocks a cell that fails, breaks "
        "torch.compile's graph (fullgraph=True fails), or holds only at the traced batch size. Each line has the "
        "class of its failure and the fix; python -m sphinx_kexport.probe worklist prints the same ranking.",
        classes=["kexport-worklist-intro"])]
    for ranking in rankings:
        if len(rankings) > 1:
            out.append(nodes.paragraph("", f"With torch {ranking.torch}:", classes=["kexport-worklist-version"]))
        out.append(_table(ranking, newest, lines, row_ids))
        if ranking.unlocated:
            out.append(nodes.paragraph(
                "", f"{ranking.unlocated} red cells name no library line (the failure reasons list them).",
                classes=["kexport-note"]))
    return out
