"""The summary cards at the top of the page (a sphinx-design grid).

The grid is written as reStructuredText and parsed with sphinx-design's own
directives, so it looks and behaves like any other grid in the project. That
text holds only fixed words and integers; every figure is then put in place
as a docutils node (see ``SLOT_PREFIX``), so no snapshot string is ever parsed as
markup.
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from ...snapshot import DEVICE_LABELS
from ...snapshot.vocabulary import COMPILE, DYNAMIC_STATIC, EXPORT, ONNX
from ..model.page_model import PageModel
from . import changes, inline

SLOT_PREFIX = "KEXPORTCARDSLOT"  # a card body placeholder, followed by the slot number

PATH_CARDS = (
    (ONNX, "ONNX export",
     "``torch.onnx.export(dynamo=True)`` at {opset}, checked with ``onnx.checker`` and run in "
     "onnxruntime against eager execution."),
    (EXPORT, "torch.export",
     "``torch.export.export`` captures the whole program as one graph."),
    (COMPILE, "torch.compile",
     "``torch.compile`` with the default inductor backend, compared with eager execution; graph "
     "breaks are counted."),
)


def _opset_text(model: PageModel) -> str:
    opsets = {}
    for device in model.devices:
        opsets.setdefault(int(model.snapshot.environments[device]["opset"]), []).append(device)
    if len(opsets) == 1:
        return f"opset {next(iter(opsets))}"
    return "opsets " + ", ".join(
        f"{opset} ({', '.join(DEVICE_LABELS[d] for d in devices)})" for opset, devices in opsets.items())


def _card_rst(title: str, slot: int, description: str, css: str) -> list[str]:
    return [
        f"   .. grid-item-card:: {title}",
        f"      :class-card: kexport-card kexport-card-{css}",
        "",
        f"      {SLOT_PREFIX}{slot}",
        "",
        f"      {description}",
        "",
    ]


def _path_figures(model: PageModel, path: str) -> list[nodes.paragraph]:
    figures = []
    for device in model.devices:
        key = f"{path}-{device}"
        para = nodes.paragraph(classes=["kexport-card-count", "sd-card-text"])
        if model.multi_device:
            label = DEVICE_LABELS[device]
            para += nodes.inline(label, label, classes=["kexport-card-device"])
            para += nodes.Text(" ")
        para += inline.count(key, model.counts.columns[key])
        figures.append(para)
    if model.has_dynamic:
        for device in model.devices:
            key = f"{path}-{device}"
            para = nodes.paragraph(classes=["kexport-card-detail", "kexport-card-batch", "sd-card-text"])
            para += inline.count(f"dyn-{key}", model.counts.columns[key].batch_text)
            where = f" on {DEVICE_LABELS[device]}" if model.multi_device else ""
            para += nodes.Text(f" of the supported cells checked hold at any batch size{where}")
            figures.append(para)
    return figures


def _overall_figures(model: PageModel) -> list[nodes.paragraph]:
    counts = model.counts
    every = "every probed path on every device" if model.multi_device else "all three paths"
    passing = nodes.paragraph(classes=["kexport-card-count", "sd-card-text"])
    passing += inline.count("pass-all", counts.pass_all["all"])
    passing += nodes.Text(" of ")
    passing += inline.count("rows", counts.rows)
    passing += nodes.Text(f" configurations pass {every}")
    figures = [passing]
    if model.multi_device:
        for device in model.devices:
            para = nodes.paragraph(classes=["kexport-card-detail", "sd-card-text"])
            para += inline.count(f"pass-all-{device}", counts.pass_all[device])
            para += nodes.Text(f" pass all three paths on {DEVICE_LABELS[device]}")
            figures.append(para)
    operators = nodes.paragraph(classes=["kexport-card-detail", "sd-card-text"])
    operators += inline.count("operators", counts.operators)
    operators += nodes.Text(" distinct operators, of which ")
    operators += inline.count("onnx-operators", counts.onnx_operators)
    operators += nodes.Text(" export to ONNX in at least one configuration")
    figures.append(operators)
    if model.has_dynamic:
        batch = nodes.paragraph(classes=["kexport-card-detail", "kexport-card-batch", "sd-card-text"])
        batch += inline.count("dyn", counts.batch.batch_text)
        batch += nodes.Text(" supported cells checked hold at any batch size; ")
        batch += inline.count(DYNAMIC_STATIC, counts.static)  # the script recounts it by the word (script_data)
        batch += nodes.Text(" configurations work only at the traced batch size somewhere")
        figures.append(batch)
    return figures


def build_cards(directive: SphinxDirective, model: PageModel, comparison=None) -> nodes.container:
    """A grid of four cards: one per capture path, and one for the whole page.

    With a ``comparison`` (``model.comparison.Comparison``, from ``:compare:``) each card
    also says how many cells regressed and were fixed since the older snapshot.
    """
    lines = [".. grid:: 1 2 2 4", "   :gutter: 3", "   :class-container: kexport-cards", ""]
    slots: list[list[nodes.paragraph]] = []
    opset = _opset_text(model)
    for path, title, description in PATH_CARDS:
        lines += _card_rst(title, len(slots), description.format(opset=opset), path)
        slots.append(_path_figures(model, path)
                     + ([changes.card_line(comparison, model, path)] if comparison is not None else []))
    lines += _card_rst("All paths", len(slots), "Configurations that pass every path they were probed on, "
                       "and the operators they cover.", "all")
    slots.append(_overall_figures(model) + ([changes.overall_line(comparison)] if comparison is not None else []))

    holder = nodes.container()
    source, line = directive.get_source_info()
    directive.state.nested_parse(StringList(lines, source=source), directive.content_offset, holder)
    for para in list(holder.findall(nodes.paragraph)):
        text = para.astext()
        if text.startswith(SLOT_PREFIX):
            para.replace_self(slots[int(text[len(SLOT_PREFIX):])])
    return holder[0]
