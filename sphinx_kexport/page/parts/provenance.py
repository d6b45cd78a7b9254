""""How this was measured": the snapshot's provenance, and a warning when it
is incomplete (a note when a run restricted with ``--only`` left cases out on purpose).

Everything here comes from the snapshot header and is built as text nodes,
never parsed as markup.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ...snapshot import DEVICE_LABELS, Snapshot
from ...snapshot.records import Selection
from ..model import speed
from ..model.page_model import PageModel

MISSING_SHOWN = 30  # names listed in the incomplete-snapshot warning before "and N more"


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _environment_item(device: str, env: dict[str, Any]) -> nodes.list_item:
    para = nodes.paragraph()
    para += nodes.strong(DEVICE_LABELS[device], DEVICE_LABELS[device])
    device_name = _text(env.get("device_name"))
    if device_name:
        para += nodes.Text(f" ({device_name})")
    tools = [("torch", "torch"), ("onnx", "onnx"), ("onnxruntime", "onnxruntime"),
             ("onnxscript", "onnxscript"), ("Python", "python")]
    parts = [f"{label} {_text(env.get(key))}" for label, key in tools if _text(env.get(key))]
    provider = _text(env.get("onnxruntime_provider"))
    if provider:
        parts.append(f"onnxruntime provider {provider}")
    parts.append(f"ONNX opset {_text(env.get('opset'))}")
    for label, key in (("CUDA", "cuda"), ("driver", "driver"), ("platform", "platform")):
        if _text(env.get(key)):
            parts.append(f"{label} {_text(env.get(key))}")
    if _text(env.get("probed_at")):
        parts.append(f"probed {_text(env.get('probed_at'))}")
    para += nodes.Text(": " + "; ".join(parts) + ".")
    return nodes.list_item("", para)


def build_measured(model: PageModel) -> list[nodes.Node]:
    snapshot = model.snapshot
    library = snapshot.library
    intro = nodes.paragraph(classes=["kexport-measured"])
    intro += nodes.strong("How this was measured.", "How this was measured.")
    name, version, revision = _text(library.get("name")), _text(library.get("version")), _text(
        library.get("revision"))
    subject = " ".join(p for p in (name, version) if p) or "the library"
    sentence = f" Snapshot of {snapshot.generated_at}, {subject}"
    if revision:
        sentence += f" at revision {revision}"
    sentence += (". Every registered operator was called with concrete example inputs (a "
                 "configuration; several code paths of one operator appear once per path, the path "
                 "named in brackets) and put through each capture path, and the output is compared "
                 "with eager execution wherever the path produces something that runs. Entries where "
                 "no path applies are listed apart, under “Not probed”, with the reason.")
    intro += nodes.Text(sentence)
    environments = nodes.bullet_list(classes=["kexport-environments"])
    for device in model.devices:
        environments += _environment_item(device, snapshot.environments[device])
    timed = speed.method(snapshot)
    if not timed:
        return [intro, environments]
    return [intro, environments, nodes.paragraph(timed, timed, classes=["kexport-speed-method"])]


def build_version_environments(versions) -> list[nodes.Node]:
    """A page across torch versions: every older version's snapshot and environments, newest first (the
    newest one's are listed above, with the snapshot the page counts); ``versions``: ``model.versions.Version``."""
    intro = nodes.paragraph(classes=["kexport-measured-versions"])
    intro += nodes.Text(f"The page also shows the older torch versions' snapshots, matched to these by "
                        f"case name ({len(versions) + 1} versions in all):")
    listing = nodes.bullet_list(classes=["kexport-version-environments"])
    for version in reversed(versions):
        para = nodes.paragraph()
        para += nodes.strong(version.title, version.title)
        para += nodes.Text(f": snapshot of {version.snapshot.generated_at}, read from ")
        para += nodes.literal(version.source, version.source)
        environments = nodes.bullet_list(classes=["kexport-environments"])
        for device in version.snapshot.devices:
            environments += _environment_item(device, version.snapshot.environments[device])
        listing += nodes.list_item("", para, environments)
    return [intro, listing]


def build_incomplete_notices(snapshot: Snapshot) -> list[nodes.Node]:
    """What the figures leave out: the cases a run restricted with ``--only`` did not measure (a note: a
    deliberate subset), then the cases lost otherwise (a warning: a shard missing, a forced merge)."""
    notices: list[nodes.Node] = []
    if snapshot.selection is not None and snapshot.selection.left_out:
        notices.append(_selection_note(snapshot.selection))
    warning = _incomplete_warning(snapshot)
    if warning is not None:
        notices.append(warning)
    return notices


def _selection_note(selection: Selection) -> nodes.note:
    note = nodes.note(classes=["kexport-selection"])
    para = nodes.paragraph()
    left_out = len(selection.left_out)
    only = " ".join(f"--only {pattern}" for pattern in selection.only)
    para += nodes.Text("This run measured only the cases matching ")
    para += nodes.literal(only, only)
    para += nodes.Text(f": the other {left_out} registered {'case has' if left_out == 1 else 'cases have'} no "
                       "results here and the figures below leave "
                       f"{'it' if left_out == 1 else 'them'} out. Run the probe without --only to measure every case.")
    note += para
    return note


def _incomplete_warning(snapshot: Snapshot) -> nodes.warning | None:
    lost = snapshot.lost
    if snapshot.complete or (snapshot.selection is not None and not lost):
        return None
    warning = nodes.warning(classes=["kexport-incomplete"])
    para = nodes.paragraph()
    if lost:
        para += nodes.Text(f"This snapshot is incomplete: {len(lost)} "
                           f"{'case was' if len(lost) == 1 else 'cases were'} not measured, so the "
                           "figures below leave them out: ")
        for i, name in enumerate(lost[:MISSING_SHOWN]):
            if i:
                para += nodes.Text(", ")
            para += nodes.literal(name, name)
        if len(lost) > MISSING_SHOWN:
            para += nodes.Text(f" and {len(lost) - MISSING_SHOWN} more")
        para += nodes.Text(".")
    else:
        para += nodes.Text("This snapshot is incomplete: some cases were not measured, so the figures "
                           "below leave them out.")
    warning += para
    return warning
