"""The speed figures on the page (probe ``--speed``): a short mark in each working cell that has one.

Plain Python over the snapshot records, shared by every builder. The mark is the realistic size's figure
when there is one (the last: batch 32 or the case's bench= inputs), else the case's own inputs'; its title
gives every figure with its size, medians and spread. A working cell the pass did not time reads "not
timed". The figures in full (sizes, medians, spread, threads, why a cell was not timed) are said once per
row (:func:`row_words`): the inputs a size was timed at are the same for each path of the row. A cell without
speed (older snapshots, runs without ``--speed``) gets no mark: such pages render exactly as before.
"""

from __future__ import annotations

from ...snapshot import PATH_LABELS, Result, Snapshot, SpeedFigure
from ...snapshot.vocabulary import SPEED_METHOD, SPEED_NOT_TIMED, speed_mark, speed_size
from .page_model import PageModel, Row


def figure(result: Result) -> SpeedFigure | None:
    """The figure a cell shows: the realistic size's, else the case's inputs' (None: no speed)."""
    speed = result.speed
    if speed is None or not result.supported or not speed.figures:
        return None
    return speed.figures[-1]


def _untimed_note(result: Result) -> str:
    """Why a working cell timed with --speed has no figure (no tensor input, a worker killed), or ""."""
    speed = result.speed
    if speed is None or not result.supported or speed.figures:
        return ""
    return speed.note


def mark(result: Result) -> str:
    """"3.1× faster", "0.45× — slower than eager", "no clear difference", "not timed" (its title says
    why), or ""."""
    shown = figure(result)
    if shown is None:
        return SPEED_NOT_TIMED if _untimed_note(result) else ""
    return speed_mark(shown.verdict, shown.ratio)


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def row_words(row: Row) -> str:
    """Every figure of the row's cells, each size's inputs said once: "Speed at batch 32 (32×3×5×5):
    torch.compile 0.39 ms, eager 1.2 ms, 3.1× (2.9–3.3); ONNX …. 2 threads. torch.export: not timed: …";
    "" for a row without speed."""
    devices = len({cell.device for cell in row.cells})
    sizes: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    threads: set[int] = set()
    for cell in row.cells:
        speed = cell.result.speed
        if speed is None or not cell.result.supported:
            continue
        label = PATH_LABELS.get(cell.path, cell.path) + (f" {cell.device}" if devices > 1 else "")
        for f in speed.figures:
            sizes.setdefault(f"{speed_size(f.size, f.batch)} ({f.shapes})", []).append(
                f"{label} {_seconds(f.path_s)}, eager {_seconds(f.eager_s)}, {f.ratio:.2f}× "
                f"({f.low:.2f}–{f.high:.2f})")
        if speed.figures:
            threads.add(speed.threads)
        if speed.note:
            notes.setdefault(speed.note, []).append(label)  # "not timed: …", "batch 32 not timed: …"
    parts = [f"Speed at {size}: {'; '.join(figures)}." for size, figures in sizes.items()]
    if threads:
        parts.append(" or ".join(str(n) for n in sorted(threads)) + f" thread{'s' if threads != {1} else ''}.")
    parts += [f"{', '.join(labels)}: {note}" + ("" if note.endswith(".") else ".") for note, labels in notes.items()]
    return " ".join(parts)


def method(snapshot: Snapshot) -> str:
    """The page header's sentence on how speed was timed ("" when no cell has speed)."""
    threads = sorted({r.speed.threads for case in snapshot.cases for paths in case.results.values()
                      for r in paths.values() if r.speed is not None and r.speed.threads})
    if not threads:
        return ""
    counts = " or ".join(str(n) for n in threads)
    return (f"Speed: each working path against eager, the ratio eager/path (above 1: faster) at the case's "
            f"inputs and at batch 32 or the case's bench= inputs, the larger size in the mark. Timed with "
            f"{SPEED_METHOD}; {counts} thread{'s' if threads != [1] else ''}. Where the spread of the ratio "
            "crosses 1.0 the mark says no clear difference.")


def figure_keys(model: PageModel) -> list[str]:
    """The keys of the page's columns ("compile-cpu", ...) whose cells have a speed figure, in display order:
    the speed filters' paths and the sort's columns ([]: a page without speed, its controls as before)."""
    keys = {cell.key for row in model.rows for cell in row.cells if figure(cell.result) is not None}
    return [f"{p}-{d}" for d, p in model.columns if f"{p}-{d}" in keys]
