"""What an API entry's badge strip says (``kexport_api_badges``), from the table rows that describe it.

Plain data over the rows the environment recorded (``parts.badges``); the strip's markup is
the writers' (``writers.html``, ``writers.text``), and builders without a badge writer get
``one_line``.
"""

from __future__ import annotations

from functools import lru_cache

from ...snapshot import DEVICE_LABELS, PATH_LABELS, PATHS, STATUSES, SUPPORTED
from ...snapshot.vocabulary import CPU, DYNAMIC_OK, DYNAMIC_STATIC, FAIL, NOT_APPLICABLE, OK, UNCOUNTED

# One record per table row, small to pickle with the environment:
# (docname, position on its page, row id, columns, codes). ``columns`` is the
# table's ((path, device), ...), one tuple object shared by its rows (pickle
# writes it once); ``codes`` has a letter per column: "y" supported, "a"
# supported and holds at any batch size, "s" supported only at the traced
# batch size, "n" probed but not supported, "-" not probed.
Record = tuple[str, int, str, tuple[tuple[str, str], ...], str]
CODES = {status: "y" if status in SUPPORTED else "-" if status in UNCOUNTED else "n" for status in STATUSES}
# a supported cell's dynamic-batch mark (``dynamic_batch.code``) -> its badge code
BATCH_CODES = {DYNAMIC_OK.code: "a", DYNAMIC_STATIC.code: "s"}
# A mark's state (its class, ``kexport-badge--<state>``), coloured as the cells of the status it sums up are,
# and said with that status's word; "partial": some configurations supported, or only at the traced batch size.
ALL, PARTIAL, NONE, NOTHING = OK.css, "partial", FAIL.css, NOT_APPLICABLE.css
WORST_FIRST = (NONE, PARTIAL, ALL, NOTHING)


def cell_code(cell: dict) -> str:
    code = CODES.get(cell["status"], "n")
    return BATCH_CODES.get(cell.get("dynamic", "-"), code) if code == "y" else code


Summary = tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]


def summary(rows: list[Record]) -> Summary:
    """Per path: (path label, worst state, ((state, mark text, title), ...)) -- one mark per device.

    A mark says "yes" (every configuration supported), "no" (none), "2/3"
    (some) or "n/a" (nothing probed), prefixed with the device when there
    are several."""
    return summary_of(tuple((columns, codes) for *_, columns, codes in rows))


@lru_cache(maxsize=4096)
def summary_of(tables: tuple[tuple[tuple[tuple[str, str], ...], str], ...]) -> Summary:
    # Cached: most operators share one of a few outcomes (everything "yes", say).
    tally: dict[tuple[str, str], list[int]] = {}  # [supported, probed, any batch, batch-specific]
    for columns, codes in tables:
        for column, code in zip(columns, codes):
            both = tally.setdefault(column, [0, 0, 0, 0])
            both[0] += code in "yas"
            both[1] += code != "-"
            both[2] += code == "a"
            both[3] += code == "s"
    devices = sorted({device for _, device in tally}, key=lambda d: (d != CPU, d))
    multi = len(devices) > 1
    found = []
    for path in PATHS:
        marks = []
        for device in devices:
            both = tally.get((path, device))
            if both is None:
                continue
            good, probed, any_batch, static = both
            if not probed:
                state, word = NOTHING, NOT_APPLICABLE.label
            elif good == probed:
                state, word = (PARTIAL if static else ALL), OK.label
            elif good == 0:
                state, word = NONE, FAIL.label
            else:
                state, word = PARTIAL, f"{good}/{probed}"
            title = f"{DEVICE_LABELS[device]}: {good} of {probed} probed configurations supported"
            if static:
                word += ", batch-specific"
                title += f"; {static} of them only at the traced batch size"
            elif good and any_batch == good:
                word += ", any batch"
                title += ", all at any batch size"
            marks.append((state, (f"{DEVICE_LABELS[device]} " if multi else "") + word, title))
        if marks:
            states = {state for state, _, _ in marks}
            worst = next(s for s in WORST_FIRST if s in states)
            found.append((PATH_LABELS[path], worst, tuple(marks)))
    return tuple(found)


def groups(summary: Summary) -> list[str]:
    """One group per path: "ONNX: CPU yes, CUDA no"."""
    return [f"{label}: " + ", ".join(text for _, text, _ in marks) for label, _, marks in summary]


@lru_cache(maxsize=4096)
def one_line(summary: Summary) -> str:
    """The strip as plain text: "ONNX: CPU yes, CUDA no · torch.export: CPU yes, CUDA yes · ..."."""
    return " · ".join(groups(summary))
