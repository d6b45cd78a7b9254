"""What the probe prints while it runs, and the summary at the end.

On a terminal: one redrawn line with a bar, running status counts and an
ETA. Elsewhere (CI logs, pipes): one plain line per finished case, so the
log stays readable. Either way a summary table ends the run.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections import Counter
from typing import Any, TextIO

from ...snapshot import DYNAMIC_STATUSES, PATH_LABELS, PATHS, STATUSES
from ...snapshot.result_records import eager_failure
from ...snapshot.vocabulary import NOT_APPLICABLE, OK_BREAKS, STAGE_EAGER, dynamic_status, status
from ..discover.progress import whole_line


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


NAME_WIDTH = 40  # the case-name column of the plain progress lines; longer names end in "…"
# the widest cell up to 999 breaks ("ok-breaks(999)/dyn-fail")
CELL_WIDTH = (max(len(s) + (len("(999)") if s == OK_BREAKS else 0) for s in STATUSES)
              + max(len(d.suffix) for d in DYNAMIC_STATUSES))


def fit(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns, or cut to ``width - 1`` characters and an ellipsis."""
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def _cell(result: dict[str, Any]) -> str:
    """A path's status in a plain progress line: its word, the graph-break count (and the functions dynamo skips,
    where it skips some), and what the dynamic-batch pass found (a suffix only where it says something about
    another batch size)."""
    cell = status(result["status"])
    skips = len(result.get("skipped_functions", ()))
    counts = f"{result.get('graph_breaks', 0)}" + (f", skips {skips}" if skips else "")
    text = f"{cell}({counts})" if cell == OK_BREAKS else str(cell)
    dynamic = result.get("dynamic", {}).get("status")
    return text + (dynamic_status(dynamic).suffix if dynamic else "")


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, interactive: bool | None = None):
        self.stream = stream or sys.stdout
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.total = total
        self.final = True  # False while more cases may still come (the total then reads "n+")
        self.done = 0
        self.measured = 0
        self.reused_count = 0
        self.counts: Counter[str] = Counter()
        self.began = time.monotonic()
        self.running: list[str] = []
        self._drawn = False

    # -- events

    def resumed(self, count: int, results: list[dict[str, dict[str, Any]]]) -> None:
        self.done += count
        for paths in results:
            self.counts.update(r["status"] for r in paths.values())
        if count:
            self._line(f"resuming: {count} finished record{'s' if count != 1 else ''} reused from the work "
                       "directory")

    def reused(self, count: int, results: list[dict[str, dict[str, Any]]], source: str) -> None:
        """Results taken from the snapshot: fingerprint and environment unchanged, nothing to measure."""
        self.done += count
        self.reused_count += count
        for paths in results:
            self.counts.update(r["status"] for r in paths.values())
        if count:
            self._line(f"reusing: {count} result{'s' if count != 1 else ''} from {source} (case and environment "
                       "unchanged; --fresh measures them again)")

    def started(self, name: str, device: str) -> None:
        self.running.append(f"{name} [{device}]")
        self._redraw()

    def finished(self, name: str, device: str, results: dict[str, dict[str, Any]], seconds: float,
                 measured: bool = True) -> None:
        label = self._done(name, device)
        self.measured += measured
        self.counts.update(r["status"] for r in results.values())
        failed = eager_failure(results)  # said on a terminal too: a case that does not run is a problem
        width = len(str(self.total))
        if not self.interactive:
            cells = f"EAGER FAILED: {failed}" if failed else "  ".join(f"{p} {_cell(results[p]):<{CELL_WIDTH}}"
                                                                      for p in PATHS)
            self._line(f"[{self.done:>{width}}/{self.total}{'' if self.final else '+'}] {device:<4} "
                       f"{fit(name, NAME_WIDTH)} {cells} "
                       f"{seconds:6.1f} s")
        elif failed:
            self._line(f"{label}: EAGER FAILED: {failed}")
        self._redraw()

    def not_built(self, name: str, device: str, why: str) -> None:
        """A case its worker could not build: counted as done, said as the probe's error (no status)."""
        self._line(f"{self._done(name, device)}: PROBE ERROR, not measured: {why}")
        self._redraw()

    def _done(self, name: str, device: str) -> str:
        """Count a case as done and no longer running; its label."""
        label = f"{name} [{device}]"
        if label in self.running:
            self.running.remove(label)
        self.done += 1
        return label

    def note(self, text: str) -> None:
        self._line(f"note: {text}")

    # -- drawing

    def _eta(self) -> str:
        left = self.total - self.done
        if not self.measured or not left:
            return ""
        per_case = (time.monotonic() - self.began) / self.measured
        return f" · {_clock(per_case * left)} left"

    def _redraw(self) -> None:
        if not self.interactive:
            return
        width = shutil.get_terminal_size((100, 20)).columns
        share = self.done / self.total if self.total else 1.0
        bar_width = 20
        filled = int(share * bar_width)
        counts = " ".join(f"{s.short} {self.counts[s]}" for s in STATUSES if self.counts[s])
        reused = f" · reused {self.reused_count}" if self.reused_count else ""
        text = (f"{share:4.0%} |{'█' * filled}{' ' * (bar_width - filled)}| {self.done}/{self.total}{reused} · "
                f"{counts}{self._eta()}")
        if self.running:
            text += f" · {self.running[-1]}"
        self.stream.write("\r" + text[: width - 1].ljust(width - 1))
        self.stream.flush()
        self._drawn = True

    def _line(self, text: str) -> None:
        if self.interactive and self._drawn:
            self.stream.write("\r" + " " * (shutil.get_terminal_size((100, 20)).columns - 1) + "\r")
        whole_line(self.stream, text)
        self._redraw()

    def close(self) -> None:
        if self.interactive and self._drawn:
            self.stream.write("\n")
            self.stream.flush()


def eager_failed_cells(cases: list[dict[str, Any]], devices: list[str]) -> list[tuple[str, str]]:
    """(case, device) of every cell whose case did not run eagerly there."""
    return [(case["name"], device) for case in cases for device in devices
            if eager_failure(case.get("results", {}).get(device) or {})]


def eager_summary(cases: list[dict[str, Any]], devices: list[str]) -> list[str]:
    """Lines naming every case that did not run eagerly, with its reason and where; [] when none."""
    failed = []
    for case in cases:
        for device in devices:
            results = case.get("results", {}).get(device)
            reason = eager_failure(results or {})
            if reason:
                where = next(iter(results.values())).get("where", "")
                failed.append(f"  {case['name']} [{device}]: {reason}" + (f" (at {where})" if where else ""))
    if not failed:
        return []
    return [f"{len(failed)} case{'s' if len(failed) != 1 else ''} failed eagerly and "
            f"{'were' if len(failed) != 1 else 'was'} not probed on any path "
            "(a problem with the case or the environment; the snapshot records them as "
            f"{NOT_APPLICABLE} at stage {STAGE_EAGER}):",
            *failed]


def summary_table(cases: list[dict[str, Any]], devices: list[str]) -> str:
    """Status counts per device and path, as aligned text."""
    lines = []
    header = ["", *STATUSES]
    for device in devices:
        rows = []
        probed = [c for c in cases if device in c.get("results", {})]
        for path in PATHS:
            counts = Counter(c["results"][device][path]["status"] for c in probed)
            rows.append([PATH_LABELS[path], *(str(counts[s]) if counts[s] else "-" for s in STATUSES)])
        table = [[f"{device} ({len(probed)} cases)", *header[1:]], *rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]
        for row in table:
            lines.append("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                                   for i, cell in enumerate(row)))
        lines += _dynamic_lines(probed, device)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _dynamic_lines(probed: list[dict[str, Any]], device: str) -> list[str]:
    """One line per path: how the supported results fare at another batch size (none without the pass)."""
    lines = []
    for path in PATHS:
        counts = Counter(c["results"][device][path]["dynamic"]["status"] for c in probed
                         if "dynamic" in c["results"][device][path])
        if counts:
            lines.append(f"  dynamic batch, {PATH_LABELS[path]}: "
                         + ", ".join(f"{counts[s]} {s}" for s in DYNAMIC_STATUSES if counts[s]))
    return lines
