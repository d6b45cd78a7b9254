"""What ``probe diff`` prints, in three formats. Standard library only.

* ``text``: for a terminal, a line per change (:meth:`Change.describe`), then the counts;
* ``md``: Markdown for a pull request's comment and GitHub's job summary (``$GITHUB_STEP_SUMMARY``): a heading
  with the verdict and the counts, a table per kind, the renamed and not compared cases. Every string from a
  snapshot is escaped (:func:`md_cell`): a case name or a failure's detail holds pipes, backticks, newlines and
  ``<``;
* ``json``: one object for scripts, its shape versioned by :data:`JSON_FORMAT` (reference/cli.rst documents it):
  the changes are their records (:class:`Change`'s fields), never sentences to parse.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from .diff import KINDS, Change, count, regressed
from .eager_change import SHOWN_DIGITS, EagerPair, unpaired_line
from .markdown import md_cell as one_cell
from .vocabulary import PATH_LABELS

FORMATS = ("text", "md", "json")
JSON_FORMAT = 1  # the JSON object's shape: a key renamed or removed bumps it, a key added does not


@dataclass(frozen=True)
class DiffReport:
    """Everything one ``probe diff`` says, whatever the format."""

    old: str  # the snapshots' files, as named on the command line
    new: str
    changes: tuple[Change, ...]
    renamed: tuple[tuple[str, str], ...]  # (old name, new name) of the cases compared under their new name
    not_compared: tuple[tuple[str, str], ...]  # (case, device) an incomplete snapshot listed but did not measure
    incomplete: tuple[str, ...]  # which of the two files says complete: false
    allowed: tuple[str, ...]  # the gate's rules --allow let through
    exit_status: int
    #: cells whose eager digests were computed by another torch or machine kind: not compared
    eager_unpaired: tuple[EagerPair, ...] = ()


def render(report: DiffReport, fmt: str) -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`), ending with a newline."""
    return {"text": text, "md": markdown, "json": as_json}[fmt](report)


def _not_compared_words(report: DiffReport) -> str:
    which = " and ".join(report.incomplete)
    verb = "lists" if len(report.incomplete) == 1 else "list"
    return (f"not compared: {len(report.not_compared)} case(s) that {which} {verb} but did not measure (complete: "
            "false, e.g. a shard part); merge the parts first to compare everything")


def _renamed_words(report: DiffReport) -> str:
    return f"renamed ({len(report.renamed)}): " + ", ".join(f"{a} -> {b}" for a, b in report.renamed)


def _counts_words(report: DiffReport) -> str:
    counts = count(report.changes)
    return ", ".join(f"{counts[k]} {k}" for k in KINDS) if report.changes else "no differences"


def text(report: DiffReport) -> str:
    lines = [_renamed_words(report)] if report.renamed else []
    for kind in KINDS:
        group = [c for c in report.changes if c.kind == kind]
        if group:
            lines.append(f"{kind} ({len(group)}):")
            lines.extend(f"  {change.describe()}" for change in group)
    lines.append(_counts_words(report))
    if report.not_compared:
        lines.append(_not_compared_words(report))
    if report.eager_unpaired:
        lines.append(unpaired_line(list(report.eager_unpaired)))
    return "\n".join(lines) + "\n"


def md_cell(value: Any) -> str:
    """``value`` as literal text in a table cell of the diff, its newlines kept as ``<br>``."""
    return one_cell(value, keep_lines=True)


def _md_lines(items: list[str]) -> str:
    return "<br>".join(md_cell(item) for item in items)


def _state(status: str | None, breaks: int, show_breaks: bool, dynamic: str | None, dynamic_moved: bool) -> str:
    words = [status or "absent"]
    if show_breaks:
        words[0] += f" ({breaks} graph break{'' if breaks == 1 else 's'})"
    if dynamic_moved:
        words.append(f"any batch: {dynamic or 'absent'}")
    return _md_lines(words)


def _why(change: Change) -> str:
    if change.eager is not None:  # the eager output's digest moved: no status, no path
        return md_cell("eager " + change.eager.describe())
    words = [change.status_why()] if change.status_changed else []
    if change.dynamic_changed and change.dynamic_why():
        words.append(f"at another batch size: {change.dynamic_why()}")
    words += [f"speed {moved}" for moved in change.speed]
    words += [f"at {change.where}"] if change.where else []
    return _md_lines([w for w in words if w])


MD_COLUMNS = ("Case", "Device", "Path", "Before", "After", "Why", "Changed code")


def _md_row(change: Change) -> str:
    breaks = change.old_breaks != change.new_breaks
    if change.eager is not None:
        states = [md_cell(f"digest {stamp.digest[:SHOWN_DIGITS]}") for stamp in (change.eager.old, change.eager.new)]
    else:
        states = [_state(change.old_status, change.old_breaks, breaks, change.old_dynamic, change.dynamic_changed),
                  _state(change.new_status, change.new_breaks, breaks, change.new_dynamic, change.dynamic_changed)]
    cells = [md_cell(change.case), md_cell(change.device), md_cell(PATH_LABELS.get(change.path, change.path)),
             *states, _why(change), _md_lines(change.code_words())]
    return "| " + " | ".join(cells) + " |"


def markdown(report: DiffReport) -> str:
    verdict = "fails" if regressed(report.changes) else "passes"
    lines = [f"## Export support diff: {verdict} ({_counts_words(report)})", "",
             f"{md_cell(report.old)} → {md_cell(report.new)}"
             + (f"; let through (--allow): {md_cell(', '.join(report.allowed))}" if report.allowed else ""), ""]
    for kind in KINDS:
        group = [c for c in report.changes if c.kind == kind]
        if group:
            lines += [f"### {kind.capitalize()} ({len(group)})", "", "| " + " | ".join(MD_COLUMNS) + " |",
                      "|" + "---|" * len(MD_COLUMNS)]
            lines += [_md_row(change) for change in group] + [""]
    if report.renamed:
        lines += [md_cell(_renamed_words(report)), ""]
    if report.not_compared:
        lines += [md_cell(_not_compared_words(report)), ""]
    if report.eager_unpaired:
        lines += [md_cell(unpaired_line(list(report.eager_unpaired))), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def as_json(report: DiffReport) -> str:
    data = {
        "format": JSON_FORMAT, "old": report.old, "new": report.new, "exit_status": report.exit_status,
        "counts": count(report.changes), "allowed": list(report.allowed),
        "changes": [asdict(change) | {"text": change.describe()} for change in report.changes],
        "renamed": [{"old": a, "new": b} for a, b in report.renamed],
        "not_compared": [{"case": case, "device": device} for case, device in report.not_compared],
        "eager_not_compared": [asdict(cell) for cell in report.eager_unpaired],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
