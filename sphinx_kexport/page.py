"""Assembles one export-support page from its components, in reading order:

cards, what was left out, the incomplete-snapshot warning, how it was
measured, the legend, the summary by package, the controls (HTML only), then
one section per package. Everything sits in one ``kexport_page`` node; the
sections come last so the doctree stays well-formed (no body element after a
section).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .cards import build_cards
from .ids import assign_id, reserve_id
from .legend import build_legend
from .measured import build_incomplete_warning, build_measured
from .model import PageModel, column_payload
from .nodes import kexport_controls, kexport_page
from .sections import SECTION_ID_PREFIX, SectionBuilder
from .summary import build_summary


def _rubric(document: nodes.document, text: str, slug: str) -> nodes.rubric:
    rubric = nodes.rubric(text, text, classes=[f"kexport-{slug}-title"])
    assign_id(document, rubric, SECTION_ID_PREFIX + slug)
    return rubric


def _left_out(model: PageModel) -> nodes.paragraph:
    para = nodes.paragraph(classes=["kexport-note"])
    text = "Each figure is supported / probed; n/a cells are not counted."
    if model.omitted:
        entries = "entry is" if model.omitted == 1 else "entries are"
        text += (f" {model.omitted} registered {entries} not listed because no capture path applies "
                 "(every cell is n/a).")
    para += nodes.Text(text)
    return para


def build_page(directive: SphinxDirective, model: PageModel) -> kexport_page:
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

    # Package sections first: the summary links to their ids.
    sections = SectionBuilder(document, model, row_suffix="" if ordinal == 1 else f"-{ordinal}")
    package_sections = sections.build()

    warning = build_incomplete_warning(model.snapshot)
    if warning is not None:
        page += warning
    page += build_cards(directive, model)
    page += _left_out(model)
    page += build_measured(model)
    if not model.groups:
        page += nodes.paragraph("", "The snapshot has no probed configuration to show.",
                                classes=["kexport-empty"])
        return page
    page += _rubric(document, "Legend", "legend")
    page += build_legend(model)
    page += _rubric(document, "Summary by package", "summary")
    page += build_summary(model, sections.section_ids)

    controls = kexport_controls()
    controls["columns"] = column_payload(model)
    controls["devices"] = list(model.devices)
    controls["total"] = model.counts.rows
    page += controls
    page.extend(package_sections)
    return page
