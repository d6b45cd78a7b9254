"""The reference's approach, for comparison: the page as RST list-tables.

Writes what Kornia's generator writes for the same rows: ``.. role::``
declarations for the six statuses, sphinx-design cards with the counts, a
legend and a summary list-table, then one ``list-table`` per package section
whose cells are role calls (``:compat-ok:`yes```), the operator as a
``:py:obj:`` reference (or a literal) with the variant as a second literal,
and a Details column with the reasons grouped by identical text and the
source location as a literal (``fixes=True``: each failure's class and fix in words after it, as the
page's Details give them, so that both sides carry the same words; ``everything=True``: also what the page
shows beyond the reference's table, as plain list-table text: each cell's dynamic-batch and speed marks, the
operator's other public names and note, the row's speed figures, the library statements and the call a
failing row is reproduced with as literal blocks). Several devices get one status column per
device and path. Rows, order, grouping and counts come from
``model.build_model``, so both sides render exactly the same configurations.

    python benchmarks/baseline_listtable.py snapshot.json page.rst
"""

from __future__ import annotations

import argparse
import re

from sphinx_kexport.page.model import speed
from sphinx_kexport.page.model.fixes import detail_fixes
from sphinx_kexport.page.model.page_model import PageModel, build_model
from sphinx_kexport.page.model.payloads import row_payload
from sphinx_kexport.page.model.words import status_meaning, status_text
from sphinx_kexport.snapshot import STATUSES, load_snapshot
from sphinx_kexport.snapshot.vocabulary import status

ROLE = {s: f"compat-{s.css}" for s in STATUSES}


def inline(text: str) -> str:
    """Escape untrusted text for one line of inline RST (the reference's rules)."""
    text = " ".join(text.split()).replace("\\", "\\\\").replace("`", "'")
    return re.sub(r"([*|_])", r"\\\1", text)


def _underline(title: str, char: str) -> str:
    return f"{title}\n{char * len(title)}\n"


def _cards(model: PageModel) -> list[str]:
    out = ["", ".. grid:: 1 3 3 3", "   :gutter: 3", ""]
    for device, path in model.columns:
        out += [f"   .. grid-item-card:: {model.column_label(device, path)}", "",
                f"      {model.counts.columns[f'{path}-{device}']}", ""]
    return out


def _legend(model: PageModel) -> list[str]:
    out = ["", _underline("Legend", "-"), "", ".. list-table::", "   :header-rows: 1", "   :widths: 20 80", "",
           "   * - Cell", "     - Meaning"]
    for word in model.statuses_used:
        out += [f"   * - :{ROLE[word]}:`{status(word).label}`", f"     - {status_meaning(word)}"]
    return out


def _summary(model: PageModel) -> list[str]:
    out = ["", _underline("Summary by package", "-"), "", ".. list-table::", "   :header-rows: 1", "",
           "   * - Package", "     - Probed"]
    out += [f"     - {model.column_label(d, p)}" for d, p in model.columns]
    for group in model.groups:
        out += [f"   * - {group.package}", f"     - {group.counts.rows}"]
        out += [f"     - {group.counts.columns[f'{p}-{d}']}" for d, p in model.columns]
    return out


def _fix_words(detail, cells: dict[str, dict]) -> str:
    """" (fix: a data-dependent guard: tell the tracer what holds …)" for a red detail, else "" (``cells``: the
    row payload's cells by key, what ``model.fixes`` reads)."""
    fixes = detail_fixes({"text": detail.text, "columns": list(detail.columns)}, cells)
    return "".join(f" (fix: {inline(f['title'])}: {inline(f['fix'])})" for f in fixes)


def _literal(text: str) -> list[str]:
    """A literal block inside a list-table cell (the cell's text is indented by 7)."""
    return ["", "       ::", ""] + [f"          {line}" for line in text.splitlines()] + [""]


def _more(row) -> tuple[str, str, list[str]]:
    """``everything``: the operator cell's and the details' additional words, and the literal blocks."""
    case = row.case
    operator = (" also: " + ", ".join(f"``{a}``" for a in case.aliases) if case.aliases else "") + \
        (f" {inline(case.note)}" if case.note else "")
    blocks = [line for where, code in row.statements.items() for line in ["", f"       ``{where}``"] + _literal(code)]
    if row.failing and case.call.strip():
        blocks += _literal(case.call)
    words = speed.row_words(row)
    return operator, (f" {inline(words)}" if words else ""), blocks


def render(model: PageModel, title: str = "Export support", fixes: bool = False, everything: bool = False) -> str:
    out = [".. Generated for the benchmark: the list-table rendering of the export-support page.\n"]
    out += [f".. role:: {role}\n" for role in ROLE.values()]
    out += ["", _underline(title, "="), "", f"{model.counts.rows} probed configurations.\n"]
    out += _cards(model) + _legend(model) + _summary(model)
    headers = [model.column_label(d, p).replace("torch.", "torch.\u200b") for d, p in model.columns]
    for group in model.groups:
        out += ["", _underline(group.package, "-")]
        for table in group.tables:
            if len(group.tables) > 1:
                out += ["", _underline(table.title, "^")]
            out += ["", ".. list-table::", "   :header-rows: 1", "   :widths: auto", "   :class: compat-table", ""]
            out.append("   * - Operator")
            out += [f"     - {h}" for h in headers]
            out.append("     - Details")
            for row in table.rows:
                case = row.case
                op = (f":py:obj:`{case.operator} <{case.ref}>`" if case.ref else f"``{case.operator}``")
                if case.variant:
                    op += f" ``[{inline(case.variant)}]``"
                more, speed_words, blocks = _more(row) if everything else ("", "", [])
                out.append(f"   * - {op}{more}")
                for device, path in model.columns:
                    cell = row.cell(device, path)
                    marks = f" {cell.mark} {speed.mark(cell.result)}".rstrip() if everything else ""
                    out.append(f"     - :{ROLE[cell.result.status]}:`{status_text(cell.result)}`{marks}")
                cells = {c["key"]: c for c in row_payload(row)["cells"]} if fixes else {}
                details = " · ".join(f"**{d.labels}:** {inline(d.text)}" + (_fix_words(d, cells) if fixes else "")
                                     for d in row.details)
                for where in row.where:
                    details += f" ``{where}``"
                details += speed_words
                out.append(f"     - {details.strip() or ' '}")
                out += blocks
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot")
    parser.add_argument("out")
    args = parser.parse_args(argv)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(render(build_model(load_snapshot(args.snapshot))))


if __name__ == "__main__":
    main()
