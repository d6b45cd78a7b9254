"""What changed since an older snapshot (``:compare:``), as the page says it: a line on each
card and a sentence after "How this was measured". The counts are ``model.comparison``'s."""

from __future__ import annotations

from docutils import nodes

from ...snapshot import DEVICE_LABELS
from ..model.comparison import Comparison
from ..model.page_model import PageModel


def card_line(comparison: Comparison, model: PageModel, path: str) -> nodes.paragraph:
    """"1 regressed, 2 fixed since 2026-01-01 (CUDA: 1 regressed)" for one capture path."""
    para = nodes.paragraph(classes=["kexport-card-changes", "sd-card-text"])
    keys = [f"{path}-{d}" for d in model.devices]
    text = f"{comparison.figures(keys)} since {comparison.since}"
    if model.multi_device:
        parts = []
        for device in model.devices:
            key = [f"{path}-{device}"]
            found = [f"{comparison.count(kind, key)} {kind}" for kind in ("regressed", "fixed")
                     if comparison.count(kind, key)]
            if found:
                parts.append(f"{DEVICE_LABELS[device]}: {', '.join(found)}")
        if parts:
            text += " (" + "; ".join(parts) + ")"
    para += nodes.Text(text)
    return para


def overall_line(comparison: Comparison) -> nodes.paragraph:
    para = nodes.paragraph(classes=["kexport-card-changes", "sd-card-text"])
    rows = comparison.rows_with()
    para += nodes.Text(f"{comparison.figures(None)} since {comparison.since}, in {rows} "
                       f"configuration{'' if rows == 1 else 's'}")
    return para


def measured(comparison: Comparison) -> nodes.paragraph:
    para = nodes.paragraph(classes=["kexport-changes"])
    para += nodes.strong("What changed.", "What changed.")
    subject = f" ({comparison.library})" if comparison.library else ""
    text = (f" Compared with the snapshot of {comparison.since}{subject}, read from ")
    para += nodes.Text(text)
    para += nodes.literal(comparison.source, comparison.source)
    regressed, fixed = comparison.count("regressed"), comparison.count("fixed")
    # a cell the older snapshot did not have is new, not a change of status
    new = comparison.new_cells
    other = comparison.count("changed") - new
    batch_regressed = ", or holding at any batch size before and not now" if comparison.dynamic else ""
    batch_fixed = ", or holding at any batch size now and not before" if comparison.dynamic else ""
    para += nodes.Text(
        f": {regressed} cell{'' if regressed == 1 else 's'} regressed (supported before, failing now"
        f"{batch_regressed}), {fixed} {'was' if fixed == 1 else 'were'} fixed (failing before, supported "
        f"now{batch_fixed}), {new} "
        f"{'is' if new == 1 else 'are'} new (a case or device the older snapshot lacks) and {other} "
        f"changed otherwise (n/a, fail to mismatch or back, graph breaks, a case no longer surveyed). "
        f"The tables mark each cell that regressed or was fixed.")
    if comparison.not_compared:
        para += nodes.Text(" " + not_compared_sentence(comparison))
    return para


SHOWN_NAMES = 5  # names quoted in the sentence; the rest are counted


def not_compared_sentence(comparison: Comparison) -> str:
    """"3 of its 17 cases have no row of the same name on this page and are not compared: a, b, c." """
    missing = comparison.not_compared
    quoted = ", ".join(missing[:SHOWN_NAMES])
    if len(missing) > SHOWN_NAMES:
        quoted += f" and {len(missing) - SHOWN_NAMES} more"
    verb = "has" if len(missing) == 1 else "have"
    return (f"{len(missing)} of its {comparison.old_cases} cases {verb} no row of the same name on this page "
            f"and {'is' if len(missing) == 1 else 'are'} not compared: {quoted}.")
