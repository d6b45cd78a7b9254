"""Building small docutils tables (the legend, the summary by package)."""

from __future__ import annotations

from docutils import nodes


def _cell(content: nodes.Node | list[nodes.Node] | str) -> nodes.entry:
    if isinstance(content, str):
        children = [nodes.Text(content)]
    elif isinstance(content, list):
        children = content
    else:
        children = [content]
    return nodes.entry("", nodes.paragraph("", "", *children))


def simple_table(header: list[str], rows: list[tuple[list[str], list]], widths: list[int],
                 classes: list[str]) -> nodes.table:
    """``rows`` are (row classes, cells); a cell is a string, a node or a list of nodes."""
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head_row = nodes.row()
    for title in header:
        head_row += _cell(title)
    head += head_row
    group += head
    body = nodes.tbody()
    for row_classes, cells in rows:
        row = nodes.row(classes=list(row_classes))
        for content in cells:
            row += _cell(content)
        body += row
    group += body
    return table
