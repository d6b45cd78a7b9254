"""Building small docutils tables (the legend, the summary by package)."""

from __future__ import annotations

from docutils import nodes


def _cell(content: nodes.Node | list[nodes.Node] | str, across: int = 1, down: int = 1) -> nodes.entry:
    """A cell; ``across`` / ``down``: how many columns / rows it spans."""
    if isinstance(content, str):
        children = [nodes.Text(content)]
    elif isinstance(content, list):
        children = content
    else:
        children = [content]
    entry = nodes.entry("", nodes.paragraph("", "", *children))
    if across > 1:
        entry["morecols"] = across - 1
    if down > 1:
        entry["morerows"] = down - 1
    return entry


HeaderCell = str | tuple[str, int, int]  # a title, or (title, columns spanned, rows spanned)


def simple_table(header: list[str] | list[list[HeaderCell]], rows: list[tuple[list[str], list]],
                 widths: list[int], classes: list[str]) -> nodes.table:
    """``header`` is one row of titles, or several rows whose cells may span
    (``(title, across, down)``); ``rows`` are (row classes, cells); a cell is a
    string, a node or a list of nodes."""
    header_rows = header if header and isinstance(header[0], list) else [header]
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    for titles in header_rows:
        head_row = nodes.row()
        for title in titles:
            head_row += _cell(*title) if isinstance(title, tuple) else _cell(title)
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
