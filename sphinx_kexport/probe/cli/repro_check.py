"""``repro --check SNAPSHOT``: every fail, mismatch and timeout cell's snippet run as pasted, each in its own
fresh interpreter (a subprocess with a time limit, ``--jobs`` at a time), judged by :mod:`.repro_verdict`.

One line per cell as it finishes (so a long run shows its progress), then a summary with the share
reproduced, by origin, and the cells that did not reproduce. Ctrl-C (or SIGTERM) stops the running snippets
and prints the summary of what finished.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ...snapshot.repro import cell_repro
from ...snapshot.repro_checks import CheckedCell, checks_document
from ...snapshot.vocabulary import FAIL, MISMATCH, ORIGINS, PATHS, TIMEOUT
from .common import EXIT_INTERRUPTED, EXIT_OK, EXIT_REGRESSED, report_failure, terminated_as_interrupted
from .repro_verdict import COULD_NOT_RUN, REPRODUCED, VERDICTS, Ran, Verdict, judge

CHECKED = (FAIL, MISMATCH, TIMEOUT)
SCRIPT = "repro_snippet.py"  # not onnx.py: it would shadow the onnx package


@dataclass(frozen=True)
class Cell:
    case: str
    path: str
    origin: str
    recorded: dict[str, Any]
    snippet: str


def failing_cells(data: dict[str, Any], device: str, path: str | None, only: list[str] | None) -> list[Cell]:
    """Every fail, mismatch and timeout cell of ``device`` (of ``path`` only, of the ``--only`` cases only)."""
    from ..survey.select import matches

    cells = []
    for case in data["cases"]:
        if only and not any(matches(case["name"], case.get("package", ""), p) for p in only):
            continue
        for each in PATHS:
            recorded = case.get("results", {}).get(device, {}).get(each)
            if recorded and recorded["status"] in CHECKED and path in (None, each):
                cells.append(Cell(case["name"], str(each), case.get("origin", ""), recorded,
                                  cell_repro(data, case, each, device)))
    return cells


class Runner:
    """Runs snippets in fresh interpreters and stops them all at once when asked."""

    def __init__(self, python: str, timeout: float):
        self.python, self.timeout = python, timeout
        self._running: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.stopping = False

    def run(self, cell: Cell) -> Verdict:
        if not cell.snippet:
            return Verdict(COULD_NOT_RUN, "the case records no call to rebuild it from")
        limit = min(self.timeout, float(cell.recorded.get("time_limit") or self.timeout))
        with tempfile.TemporaryDirectory(prefix="kexport-check-") as where:
            script = os.path.join(where, SCRIPT)
            with open(script, "w", encoding="utf-8") as handle:
                handle.write(cell.snippet)
            ran = self._run(script, where, limit)
        return judge(cell.recorded, cell.snippet, script, ran)

    def _run(self, script: str, where: str, limit: float) -> Ran:
        started = time.monotonic()
        # its own session: Ctrl-C reaches this process only, which then stops every snippet with its children
        process = subprocess.Popen([self.python, script], cwd=where, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace", start_new_session=True)
        with self._lock:
            if self.stopping:
                _kill(process)
            self._running.add(process)
        try:
            out, err = process.communicate(timeout=limit)
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            _kill(process)
            out, err = process.communicate()
            code = None
        finally:
            with self._lock:
                self._running.discard(process)
        return Ran(code, out, err, time.monotonic() - started, limit)

    def stop(self) -> None:
        with self._lock:
            self.stopping = True
            for process in self._running:
                _kill(process)


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _line(cell: Cell, verdict: Verdict, done: int, total: int) -> str:
    width = len(str(total))
    head = f"[{done:>{width}}/{total}] {verdict.verdict:<15} {cell.case} · {cell.path}"
    if verdict.verdict == REPRODUCED:
        return f"{head}: {verdict.what}"
    recorded = cell.recorded["status"] + (f" ({cell.recorded['detail']})" if cell.recorded.get("detail") else "")
    return f"{head}: recorded {recorded}; {verdict.what}"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def summary(results: list[tuple[Cell, Verdict]], total: int, torch: str) -> str:
    counts = Counter(v.verdict for _, v in results)
    reproduced = counts[REPRODUCED]
    lines = [f"{len(results)} of {total} failing cells checked{f' (torch {torch})' if torch else ''}: "
             f"{reproduced} reproduced ({_percent(reproduced, len(results))}), "
             + ", ".join(f"{counts[v]} {v}" for v in VERDICTS[1:])]
    for origin in (*ORIGINS, *sorted({c.origin for c, _ in results} - set(ORIGINS))):
        mine = [v.verdict for c, v in results if c.origin == origin]
        if mine:
            each = Counter(mine)
            lines.append(f"  {origin or '(no origin)'}: {each[REPRODUCED]} of {len(mine)} reproduced "
                         f"({_percent(each[REPRODUCED], len(mine))}), "
                         + ", ".join(f"{each[v]} {v}" for v in VERDICTS[1:]))
    missed = sorted((c.case, c.path, v) for c, v in results if v.verdict != REPRODUCED)
    if missed:
        lines.append("not reproduced:")
        lines += [f"  {case} · {path}: {v.verdict}: {v.what}" for case, path, v in missed]
    return "\n".join(lines)


def _installed_torch(python: str) -> str:
    try:
        done = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def run_check(args: Any) -> int:
    from ...snapshot import SnapshotError, read_snapshot

    if args.jobs < 1:
        return report_failure(f"--jobs must be 1 or more, found {args.jobs}")
    if args.timeout <= 0:
        return report_failure(f"--timeout must be more than 0 seconds, found {args.timeout:g}")
    if args.sample is not None and args.sample < 1:
        return report_failure(f"--sample must be 1 or more, found {args.sample}")
    try:
        data, _ = read_snapshot(args.snapshot)
    except SnapshotError as exc:
        return report_failure(str(exc))
    if args.device not in data["environments"]:
        return report_failure(f"{args.snapshot} holds no {args.device} results (devices: "
                              f"{', '.join(data['environments']) or 'none'}); choose one with --device")
    cells = failing_cells(data, args.device, args.path, args.only)
    if not cells:
        print(f"{args.snapshot}: no fail, mismatch or timeout cell on {args.device} to check"
              + (" among the --only cases" if args.only else ""))
        return EXIT_OK
    if args.sample and args.sample < len(cells):
        cells = random.Random(args.sample).sample(cells, args.sample)
    python = args.python or sys.executable
    recorded_torch = (data["environments"][args.device].get("torch") or "").split("+")[0]
    installed = _installed_torch(python)
    if recorded_torch and installed and installed.split("+")[0] != recorded_torch:
        print(f"note: {args.snapshot} was measured with torch {recorded_torch}; {python} has torch {installed}: "
              "a cell may end otherwise for that alone", file=sys.stderr)
    print(f"checking {len(cells)} failing cells of {args.snapshot} on {args.device}, {args.jobs} at a time "
          f"(time limit {args.timeout:g} s each)", flush=True)
    runner = Runner(python, args.timeout)
    results: list[tuple[Cell, Verdict]] = []
    interrupted = False
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        with terminated_as_interrupted():
            pending = {pool.submit(runner.run, cell): cell for cell in cells}
            while pending:
                finished, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    cell = pending.pop(future)
                    results.append((cell, future.result()))
                    print(_line(cell, results[-1][1], len(results), len(cells)), flush=True)
    except KeyboardInterrupt:
        interrupted = True
        runner.stop()
        print(f"\ninterrupted: {len(results)} of {len(cells)} cells finished; the running snippets were stopped",
              file=sys.stderr)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    print(summary(results, len(cells), installed), flush=True)
    if args.write:
        _write(args.write, args.snapshot, installed, args.device, results)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if all(v.verdict == REPRODUCED for _, v in results) else EXIT_REGRESSED


def _write(target: str, snapshot: str, torch: str, device: str, results: list[tuple[Cell, Verdict]]) -> None:
    """The file the page's ``:repro-check:`` option reads (snapshot/repro_checks.py)."""
    checked = [CheckedCell(c.case, c.path, v.verdict, v.what) for c, v in results]
    with open(target, "w", encoding="utf-8") as handle:
        json.dump(checks_document(snapshot, torch, device, checked), handle, indent=2, ensure_ascii=False)
        handle.write("\n")
