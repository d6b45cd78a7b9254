"""The "Not probed" part: every registered entry that has no row, and every object without a case, and why.

An entry whose every cell is n/a has nothing to show in the tables, but it
is still a fact a reader acts on: an operator that fails eagerly (a broken
case or a broken install) must not vanish silently, and a deliberate skip
says why. Entries that fail eagerly come first. Then the objects whose
docstring example yielded no case (the snapshot's ``objects_without_cases``:
the example raised, tried to download, doctest cannot parse it, ...). Built
as plain docutils nodes, so every builder shows it; every string is snapshot
data, set as text.
"""

from __future__ import annotations

from collections import Counter

from docutils import nodes

from ...snapshot.records import ObjectWithoutCase
from ...snapshot.vocabulary import NO_CASE_KINDS, NO_CASE_WORDS
from ..model.page_model import NotProbed, PageModel
from ..model.words import EAGER_FAILURE, NOT_PROBED_KINDS
from .simple_tables import simple_table

KIND_TEXT = {
    EAGER_FAILURE: "fails eagerly (a problem with the case or the environment)",
    "skipped": "skipped by the case module",
    "nothing to capture": "nothing to capture",
}


def summary_sentence(model: PageModel) -> str:
    """" 3 registered entries are not in the tables (2 fail eagerly, 1 skipped); 4 objects' docstring examples
    yielded no case: see “Not probed” below."."""
    said = []
    if model.not_probed:
        counts = Counter(entry.kind for entry in model.not_probed)
        parts = ", ".join(f"{counts[kind]} {kind}" for kind in NOT_PROBED_KINDS if counts[kind])
        n = len(model.not_probed)
        said.append(f"{n} registered {'entry is' if n == 1 else 'entries are'} not in the tables ({parts})")
    without = model.snapshot.objects_without_cases
    if without:
        said.append(f"{len(without)} {'object’s docstring example' if len(without) == 1 else 'objects’ docstring examples'}"
                    " yielded no case")
    return f" {'; '.join(said)}: see “Not probed” below." if said else ""


def _operator(entry: NotProbed) -> list[nodes.Node]:
    case = entry.case
    out: list[nodes.Node] = [nodes.literal(case.operator, case.operator)]
    if case.variant:
        out += [nodes.Text(" "), nodes.literal(f"[{case.variant}]", f"[{case.variant}]")]
    out.append(nodes.Text(f" ({case.package})"))
    return out


def _reason(entry: NotProbed) -> list[nodes.Node]:
    out: list[nodes.Node] = [nodes.Text(entry.reason or "no reason recorded")]
    if entry.where:
        out += [nodes.Text(" (at "), nodes.literal(entry.where, entry.where), nodes.Text(")")]
    return out


def _objects_without_cases(objects: list[ObjectWithoutCase]) -> list[nodes.Node]:
    ordered = sorted(objects, key=lambda o: (NO_CASE_KINDS.index(o.kind) if o.kind in NO_CASE_KINDS else 99, o.ref))
    counts = Counter(o.kind for o in ordered)
    intro = nodes.paragraph(classes=["kexport-without-cases-intro"])
    intro += nodes.Text(
        f"{len(ordered)} {'object' if len(ordered) == 1 else 'objects'} of the library "
        f"{'has a docstring example that' if len(ordered) == 1 else 'have docstring examples that'} yielded no "
        "case (" + ", ".join(f"{counts[k]} {NO_CASE_WORDS.get(k, k)}" for k in counts) + "). Fix the example "
        "(or write a case by hand) to have it probed.")
    rows = [([f"kexport-without-cases--{o.kind.replace(' ', '-')}"],
             [[nodes.literal(o.ref, o.ref), nodes.Text(f" ({o.package})" if o.package else "")],
              NO_CASE_WORDS.get(o.kind, o.kind), o.detail or "no detail recorded"]) for o in ordered]
    table = simple_table(["Object", "Why no case", "Detail"], rows, [30, 20, 50], ["kexport-without-cases"])
    return [intro, table]


def build_not_probed(model: PageModel) -> list[nodes.Node]:
    without = model.snapshot.objects_without_cases
    if not model.not_probed:
        return _objects_without_cases(without) if without else []
    ordered = sorted(model.not_probed, key=lambda e: NOT_PROBED_KINDS.index(e.kind))
    intro = nodes.paragraph(classes=["kexport-not-probed-intro"])
    eager = sum(1 for e in ordered if e.kind == EAGER_FAILURE)
    text = ("Registered entries with no row in the tables: no path was measured for them on any device "
            "shown here.")
    if eager:
        text += (f" {eager} fail{'s' if eager == 1 else ''} eagerly: the operator did not run with the "
                 "probed inputs at all, so its capture paths are unknown; fix the case or the environment "
                 "and probe again.")
    intro += nodes.Text(text)
    rows = [([f"kexport-not-probed--{entry.kind.replace(' ', '-')}"],
             [_operator(entry), KIND_TEXT.get(entry.kind, entry.kind), _reason(entry)]) for entry in ordered]
    table = simple_table(["Operator", "Why not", "Reason"], rows, [30, 20, 50], ["kexport-not-probed"])
    return [intro, table, *(_objects_without_cases(without) if without else [])]
