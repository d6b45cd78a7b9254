"""The picture of speed (probe ``--speed``): per package, how far each working path's speed figures lie from
eager, with the same in words.

For each package a paragraph says, per path, how many figures are faster, slower or no clear difference and
their median ratio ("torch.compile: 12 faster, 3 slower, 5 no clear difference; median 1.8×"): every builder
writes it. HTML adds a ``kexport_speed_picture`` node after it, one dot per figure on a log axis with 1× (eager)
marked (``writers.speed_svg``); the other builders skip that node, the sentence is their equivalent. A page
without speed figures has no part at all.
"""

from __future__ import annotations

from statistics import median

from docutils import nodes

from ...snapshot import PATH_LABELS, PATHS
from ...snapshot.vocabulary import SPEED_FASTER, SPEED_SLOWER, SPEED_UNCLEAR, speed_ratio
from ..model import speed
from ..model.page_model import PackageGroup, PageModel
from ..nodes import kexport_speed_picture
from .ids import reserve_id

INTRO = ("Per package and path, how many working configurations' speed figures (the one each cell shows) are "
         "faster than eager, slower, or no clear difference, and their median ratio eager/path.")


def strips(group: PackageGroup) -> list[dict]:
    """Per path with figures, in page order: ``{"path", "label", "figures": [[ratio, verdict], ...]}``."""
    found: dict[str, list[list]] = {}
    for table in group.tables:
        for row in table.rows:
            for cell in row.cells:
                figure = speed.figure(cell.result)
                if figure is not None:
                    found.setdefault(cell.path, []).append([figure.ratio, str(figure.verdict)])
    return [{"path": p, "label": PATH_LABELS[p], "figures": found[p]} for p in PATHS if p in found]


def strip_sentence(strip: dict) -> str:
    """"torch.compile: 12 faster, 3 slower, 5 no clear difference; median 1.8×"."""
    verdicts = [verdict for _, verdict in strip["figures"]]
    counts = ", ".join(f"{verdicts.count(str(v))} {words}" for v, words in
                       ((SPEED_FASTER, str(SPEED_FASTER)), (SPEED_SLOWER, str(SPEED_SLOWER)),
                        (SPEED_UNCLEAR, SPEED_UNCLEAR.mark)))
    return f"{strip['label']}: {counts}; median {speed_ratio(median(r for r, _ in strip['figures']))}×"


def build_speed_picture(document: nodes.document, model: PageModel, suffix: str = "") -> list[nodes.Node]:
    """The intro, then per package with figures its sentence and (HTML) its picture; [] without figures."""
    out: list[nodes.Node] = []
    found_by_group = [(group, strips(group)) for group in model.groups]
    ratios = [r for _, found in found_by_group for strip in found for r, _ in strip["figures"]]
    for group, found in found_by_group:
        if not found:
            continue
        sentences = [strip_sentence(s) for s in found]
        para = nodes.paragraph(classes=["kexport-speed-words"])
        para += nodes.strong(group.package, group.package)
        para += nodes.Text(" — " + "; ".join(sentences) + ".")
        picture = kexport_speed_picture()
        picture["package"] = group.package
        picture["strips"] = found
        picture["extent"] = [min(ratios), max(ratios)]  # one axis for the page's pictures: they compare
        picture["sentences"] = sentences
        picture["svg_id"] = reserve_id(document, picture, f"kexport-speed-{group.slug}{suffix}")
        picture["key"] = not out  # the first picture says how to read the dots
        out += [para, picture]
    if out:
        out.insert(0, nodes.paragraph("", INTRO, classes=["kexport-speed-intro"]))
    return out
