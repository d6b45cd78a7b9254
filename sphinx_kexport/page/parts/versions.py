"""A page across torch versions: the regressions between the two newest versions, at the top.

The list is ``History.regressions``: ``snapshot.diff.compare``, the code ``probe diff`` runs, so the page
and the command line name the same cells. Every string is a text node (snapshot data is never markup).
"""

from __future__ import annotations

from docutils import nodes

from ...snapshot import DEVICE_LABELS, PATH_LABELS
from ..model.page_model import PageModel
from ..model.version_history import History
from ..model.words import status_label


def build_regressions(history: History, model: PageModel) -> nodes.container:
    older, newer = history.versions[-2], history.versions[-1]
    changes = history.regressions(model)
    holder = nodes.container(classes=["kexport-version-regressions"])
    para = nodes.paragraph()
    title = f"Regressions in {newer.title}."
    para += nodes.strong(title, title)
    n = len(changes)
    if not n:
        para += nodes.Text(f" No cell that works with {older.title} fails with {newer.title}.")
        holder += para
        return holder
    para += nodes.Text(f" {n} cell{'' if n == 1 else 's'} that worked with {older.title} "
                       f"fail{'s' if n == 1 else ''} with {newer.title}:")
    holder += para
    rows = {row.case.name: row for row in model.rows}
    listing = nodes.bullet_list()
    for change in changes:
        case = rows[change.case].case
        item = nodes.paragraph()
        item += nodes.literal(case.operator, case.operator)
        if case.variant:
            item += nodes.Text(" ")
            item += nodes.literal(f"[{case.variant}]", f"[{case.variant}]")
        column = PATH_LABELS[change.path] + (f" ({DEVICE_LABELS[change.device]})" if model.multi_device else "")
        text = f" — {column}: {status_label(change.old_status)} → {status_label(change.new_status)}"
        if change.new_detail.strip():
            text += f" ({' '.join(change.new_detail.split())})"
        item += nodes.Text(text)
        listing += nodes.list_item("", item)
    holder += listing
    return holder
