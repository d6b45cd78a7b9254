"""Assembles one export-support page from its components, in reading order:

cards, what was left out, the incomplete-snapshot warning, how it was
measured (with what changed since an older snapshot, ``:compare:``, and the
data's download links), the legend, the summary by package, the speed
picture (probe ``--speed``), the failure
reasons (``:reasons:``), the fixes by class (each fix said once; the cells and
the reasons link to it), the controls (HTML only), then one section per
package. Everything sits in one ``kexport_page`` node; the
sections come last so the doctree stays well-formed (no body element after a
section).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from ...snapshot.vocabulary import TIMEOUT
from ..builders import reading_for_html
from ..model.fixes import classes_used
from ..model.page_model import PageModel
from ..model.payloads import column_payload
from ..model.speed import figure_keys
from ..nodes import kexport_controls, kexport_page, kexport_table
from . import changes
from .cards import build_cards
from .downloads import build_node as build_downloads
from .failure_reasons import build_reasons, link_details
from .fix_legend import INTRO as FIXES_INTRO
from .fix_legend import build_fix_legend
from .ids import assign_id, reserve_id
from .legend import build_legend
from .not_probed import build_not_probed, summary_sentence
from .provenance import build_incomplete_notices, build_measured, build_version_environments
from .repro import build_repro
from .repro_check import checks_sentence, row_checks
from .sections import SECTION_ID_PREFIX, SectionBuilder
from .speed_picture import build_speed_picture
from .summary import build_summary
from .versions import build_regressions
from .worklist import build_worklist


def _rubric(document: nodes.document, text: str, slug: str) -> nodes.rubric:
    rubric = nodes.rubric(text, text, classes=[f"kexport-{slug}-title"])
    assign_id(document, rubric, SECTION_ID_PREFIX + slug)
    return rubric


def _left_out(model: PageModel, history=None) -> nodes.paragraph:
    para = nodes.paragraph(classes=["kexport-note"])
    newest = f" The figures are {history.newest.title}'s, the newest version." if history is not None else ""
    para += nodes.Text("Each figure is supported / probed; n/a cells are not counted." + newest
                       + summary_sentence(model))
    return para


def _not_probed(document: nodes.document, model: PageModel) -> list[nodes.Node]:
    part = build_not_probed(model)
    return [_rubric(document, "Not probed", "not-probed"), *part] if part else []


def _decorator(reason_links: dict[str, dict[str, str]], comparison, history=None, checks=None):
    """Adds the optional row payload keys: ``reasons`` ({detail text: reason
    index entry id}), ``changes`` (cells that differ from the older snapshot),
    ``versions`` (``History.row_payload``: a row whose versions differ) and
    ``repro_checks`` (``repro_check.row_checks``: its snippets, checked)."""
    if not reason_links and comparison is None and history is None and checks is None:
        return None

    def decorate(row, payload: dict) -> None:
        reasons = reason_links.get(row.id)
        if reasons:
            link_details(payload, reasons)
        if comparison is not None:
            changes = comparison.by_case.get(row.case.name)
            if changes:
                payload["changes"] = changes
        if history is not None:
            versions = history.row_payload(row)
            if versions is not None:
                payload["versions"] = versions
        checked = row_checks(checks, row.case.name)
        if checked:
            payload["repro_checks"] = checked
    return decorate


def build_page(directive: SphinxDirective, model: PageModel, *, reasons: bool = True, comparison=None,
               downloads: dict | None = None, history=None, older_models=(), worklist=((), 0),
               checks=None) -> kexport_page:
    """``reasons``: add the reason index; ``comparison``: a ``model.comparison.Comparison``;
    ``downloads``: what ``downloads.note_snapshot`` returned (None: no links); ``history``: a
    ``model.version_history.History`` (a page across torch versions); ``older_models``: (torch version,
    that version's ``PageModel``) for each older version, whose reason indexes HTML lets the reader choose;
    ``worklist``: (``snapshot.worklist`` rankings, newest first; lines shown per version), 0 lines: no part;
    ``checks``: ``snapshot.repro_checks.ReproChecks`` of the page's snapshot (None: not checked)."""
    document = directive.state.document
    page = kexport_page()
    directive.set_source_info(page)
    # Snapshot text is data: keep its quotes, dashes and dots as written.
    page["support_smartquotes"] = False
    # The n-th page of a document (n > 1) suffixes its row ids with -n.
    ordinal = directive.env.new_serialno("kexport-page") + 1
    page["page_id"] = reserve_id(document, page, "kexport")
    page["devices"] = list(model.devices)
    page["columns"] = column_payload(model)
    if history is not None:
        page["versions"] = history.labels  # oldest first, as each row's ``versions`` strip
    speed_keys = figure_keys(model)
    if speed_keys:
        page["speed"] = True  # the speed filters' codes and words for the script

    suffix = "" if ordinal == 1 else f"-{ordinal}"
    newest = history.newest.label if history is not None else ""
    reason_node, reason_links = build_reasons(document, model, suffix, newest) if reasons else (None, {})
    older_reasons = [node for label, older in older_models
                     for node in [build_reasons(document, older, suffix, label, older=True)[0]] if node is not None]
    if comparison is not None:
        page["since"] = comparison.since  # the change markers' titles
    # Package sections first: the summary links to their ids.
    sections = SectionBuilder(document, model, row_suffix=suffix, decorate=_decorator(reason_links, comparison, history, checks))
    package_sections = sections.build()
    rows = [row for section in package_sections for table in section.findall(kexport_table) for row in table["rows"]]
    entries = [entry for node in [reason_node, *older_reasons] if node is not None for entry in node["entries"]]
    fixes, page["fix_ids"] = build_fix_legend(document, classes_used(rows, entries), suffix)

    page += build_incomplete_notices(model.snapshot)
    page += build_cards(directive, model, comparison)
    if history is not None:
        page += build_regressions(history, model)
    page += _left_out(model, history)
    page += build_measured(model)
    if checks is not None:
        page += checks_sentence(checks)
    if history is not None:
        page += build_version_environments(history.versions[:-1])
    if comparison is not None:
        page += changes.measured(comparison)
    if downloads is not None:
        page += build_downloads(downloads, model.snapshot.source)
    if not model.groups:
        page += nodes.paragraph("", "The snapshot has no probed configuration to show.",
                                classes=["kexport-empty"])
        page += _not_probed(document, model)
        return page
    page += _rubric(document, "Legend", "legend")
    page += build_legend(model)
    page += _rubric(document, "Summary by package", "summary")
    # spanning header cells only where every writer of the family supports them (not man, texinfo)
    page += build_summary(model, sections.section_ids, spanning=reading_for_html(directive.env))
    speed_part = build_speed_picture(document, model, suffix)
    if speed_part:
        page += _rubric(document, "Speed over eager", "speed")
        page.extend(speed_part)
    if reason_node is not None or older_reasons:
        page += _rubric(document, "Failure reasons", "reasons")
        page += nodes.paragraph("", "Every distinct reason a configuration fails, most frequent first, with "
                                "the number of failing cells per path and device. Reasons that differ only "
                                "in names, numbers or shapes are one entry, shown by its most frequent text "
                                "with one operator and library line it comes from and the class of the "
                                "failure (its fix is under Fixes by class); each row keeps its own concrete "
                                "text."
                                + (" Supported cells that work only at the traced batch size, or whose "
                                   "capture with a dynamic batch fails, are listed too, with why."
                                   if model.has_dynamic else ""),
                                classes=["kexport-reasons-intro"])
        if reason_node is not None:
            page += reason_node
        page.extend(older_reasons)  # hidden until the reader chooses that torch version
    if fixes["entries"]:
        page += _rubric(document, "Fixes by class", "fixes")
        page += nodes.paragraph("", FIXES_INTRO, classes=["kexport-fixes-intro"])
        page += fixes
    rankings, lines = worklist
    worklist_part = build_worklist(list(rankings), model, lines, suffix) if lines else []
    if worklist_part:
        page += _rubric(document, "Where to fix first", "worklist")
        page.extend(worklist_part)
    page += _not_probed(document, model)
    repro = build_repro(model)
    if repro is not None:
        page += repro

    controls = kexport_controls()
    controls["columns"] = column_payload(model)
    controls["devices"] = list(model.devices)
    controls["total"] = model.counts.rows
    if comparison is not None:
        controls["since"] = comparison.since  # adds the "changed since" filters
    if history is not None:
        controls["versions"] = history.labels  # the torch-version selector and its filter
    if reason_node is not None or older_reasons:
        controls["reasons"] = True  # the script can filter by reason
    if model.counts.static:
        controls["traced_batch_only"] = True  # adds the "works only at the traced batch size" filter
    if any(c.result.status == TIMEOUT for row in model.rows for c in row.cells):
        controls["timeouts"] = True  # adds the "ran past the time limit" filter
    if speed_keys:
        controls["speed_keys"] = speed_keys  # adds the speed filters and the order by speed
    page += controls
    page.extend(package_sections)
    return page
