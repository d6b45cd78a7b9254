"""The probe's main command: refresh the snapshot, a thin wrapper around :func:`..survey.api.run_survey`.

Exit status: 0 when the survey ran (failing cases are data, not errors),
2 for a mistake in the configuration, the case modules or the command line
(a message says what to fix; no traceback), 3 when the probe itself could
not run, 4 when the survey ran and wrote the snapshot but some probed cases
do not run eagerly (they are listed at the end and recorded as ``n/a`` at
stage ``eager``), 5 when ``--stop-after`` ended it (the snapshot holds what was finished, marked
incomplete; rerun the same command for the rest), 130 when interrupted (rerun the same command to resume).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...snapshot.vocabulary import DEFAULT_OPSET, DEVICES
from .common import (EXIT_EAGER, EXIT_INTERRUPTED, EXIT_OK, EXIT_STATUS_HELP, EXIT_STOPPED, EXIT_TOOL, PROG,
                     CliParser, report_failure, terminated_as_interrupted)

if TYPE_CHECKING:  # the CLI imports the survey lazily
    from ..survey.config import Shard


def probe_parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=(
        "Probe every registered case through ONNX, torch.export and torch.compile and write the snapshot. "
        "Without flags it reads the [tool.sphinx-kexport] table of the nearest pyproject.toml (keys: cases, "
        "out, devices, library, jobs, timeout, opset, dynamic, speed)."),
        epilog="Interrupted or killed? Run the same command again: finished cases are not re-run. "
               + EXIT_STATUS_HELP)
    parser.add_argument("--cases", action="append", metavar="MODULE_OR_FILE",
                        help="case module, .py file or directory (repeatable; replaces `cases`)")
    parser.add_argument("--out", metavar="PATH", help="snapshot to write (replaces `out`)")
    parser.add_argument("--device", action="append", choices=DEVICES,
                        help="device to probe (repeatable; replaces `devices`); other devices' results "
                             "already in the snapshot are kept")
    parser.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: CPU count, max 8)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="the time limit of each step (running a case eagerly, each path, "
                             "each dynamic-batch pass); a step past it is recorded as timeout, which a run with "
                             "a larger limit measures again (default 300)")
    parser.add_argument("--build-timeout", type=float, metavar="SECONDS",
                        help="the time limit of building one case in a worker (from the discovery cache, or its one "
                             "docstring example or test run again), before its eager run: a case not built in time "
                             "is not measured, has no status and is tried again by the next run (default 600)")
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="probe only cases whose name equals or starts with PATTERN, or whose package is "
                             "PATTERN (repeatable; * and ? are wildcards); the others keep their results")
    parser.add_argument("--opset", type=int, metavar="N", help=f"ONNX opset (default {DEFAULT_OPSET})")
    parser.add_argument("--shard", metavar="K/N",
                        help="probe the K-th of N deterministic slices of the cases and write a part for "
                             "`merge` (default output: <out>.shard-K-of-N.json)")
    parser.add_argument("--library", metavar="NAME",
                        help="import name of the surveyed library (replaces `library`; without either, the most common "
                             "top-level package of the cases)")
    parser.add_argument("--config", metavar="PYPROJECT", help="pyproject.toml to read instead of the nearest")
    parser.add_argument("--fresh", action="store_true",
                        help="measure every selected case again: ignore the results already in the snapshot and "
                             "the finished records of an interrupted run (docstring cases still come from the "
                             "discovery cache: --rediscover runs the examples again)")
    parser.add_argument("--rediscover", action="store_true",
                        help="run the docstring examples again and replace their discovery cache entries (the "
                             "cases that changed are measured; add --fresh to measure all again)")
    parser.add_argument("--keep-work", action="store_true",
                        help="keep the work directory of per-case records after writing the snapshot")
    parser.add_argument("--no-dynamic", action="store_true",
                        help="skip the dynamic-batch pass (each supported path captured again with a dynamic "
                             "batch and run at another batch size); same as `dynamic = false`")
    parser.add_argument("--speed", action="store_true",
                        help="time every working path against eager (torch.utils.benchmark's blocked_autorange, "
                             "median, after warm-up, interleaved, the worker's thread count fixed) at the case's "
                             "inputs and at batch 32 (or the case's bench= inputs): the page shows \"3.1× faster\", "
                             "\"0.45× — slower than eager\" or \"no clear difference\"; same as `speed = true`. "
                             "A snapshot that holds speed figures keeps them: without --speed the cases measured "
                             "again are timed too")
    parser.add_argument("--stop-after", metavar="DURATION",
                        help="stop measuring this long after the run began (seconds, or 25m, 1.5h, 2h05m): cases still "
                             "running are stopped, and the snapshot is written with what is finished, marked "
                             "complete: false, the rest listed as missing; the same command again measures the "
                             f"rest (exit status {EXIT_STOPPED} says there is more to do). For a CI job or a lent "
                             "machine with a time limit: leave a few minutes for writing the snapshot")
    parser.add_argument("--dry-run", action="store_true",
                        help="say which cases this run would measure and why (new case, the code it ran changed, "
                             "its definition changed, a new environment, a timeout under a smaller limit) and how "
                             "long each took the last time (the estimate sums those worker-seconds: each case as "
                             "its last run measured it, all passes included; a new case is not counted), then "
                             "stop: nothing is measured or written (the inventory is still built: docstring "
                             "examples and tests not in the discovery cache run); with --stats, the same as data")
    parser.add_argument("--stats", metavar="PATH", help="write run statistics (timings, worker memory) as JSON; with --dry-run, the cells "
                             "it would measure and the estimate")
    return parser


def _state(snapshot: dict, shard: Shard | None) -> str:
    """How complete the written file is, in words; a shard's part says where the rest is."""
    if snapshot["complete"]:
        return "complete"
    missing = len(snapshot["missing"])
    if shard is not None:
        return (f"the part of shard {shard}: {len(snapshot['cases']) - missing} with results, {missing} left to the "
                f"other parts; `{PROG} merge OUT PART...` joins them")
    left_out = len(snapshot.get("selection", {}).get("left_out", ()))
    only = " ".join(f"--only {p}" for p in snapshot.get("selection", {}).get("only", ()))
    lost = f"incomplete: {missing - left_out} cases missing" if missing > left_out else ""
    chosen = (f"{len(snapshot['cases']) - missing} with results, {left_out} left out by {only} (the page says the "
              "run was restricted)") if left_out else ""
    return "; ".join(part for part in (chosen, lost) if part)


def run_probe(args: argparse.Namespace) -> int:
    from ..run.progress import summary_table
    from ..base.errors import ToolError
    from ..survey.api import SurveyError, SurveyStopped, run_survey
    from ..survey.config import ConfigError, build_config

    try:
        config = build_config(args, Path.cwd())
    except ConfigError as exc:
        return report_failure(str(exc))
    try:
        with terminated_as_interrupted():
            result = run_survey(config)
    except SurveyError as exc:
        return report_failure(str(exc))
    except SurveyStopped as exc:
        return report_failure(str(exc), EXIT_STOPPED)
    except ToolError as exc:
        return report_failure(str(exc), EXIT_TOOL)
    except KeyboardInterrupt:
        kept = f"; --stats wrote what was measured until now to {config.stats}" if config.stats else ""
        print(f"\ninterrupted: rerun the same command to resume (finished cases are kept{kept})", file=sys.stderr)
        return EXIT_INTERRUPTED
    snapshot, counts = result.snapshot, result.counts
    if config.dry_run:
        print("\n".join(result.plan))
        return EXIT_OK
    for note in result.notes:
        print(f"note: {note}")
    print()
    print(summary_table(snapshot["cases"], list(snapshot["environments"])), end="")
    state = _state(snapshot, config.shard)
    print(f"\nmeasured {counts.measured}, reused {counts.reused_snapshot + counts.reused_work} (unchanged since the "
          f"snapshot: {counts.reused_snapshot}, from the interrupted run: {counts.reused_work}), skipped {counts.skipped}")
    if result.written:
        print(f"wrote {config.out} ({len(snapshot['cases'])} cases, {state})")
    else:  # a rerun that measured nothing: no diff of timestamps in the committed file
        print(f"nothing was measured and nothing changed: left {config.out} as it was ({len(snapshot['cases'])} "
              f"cases, {state})")
    if result.not_built:
        print("\n" + "\n".join(result.not_built))
        return report_failure(f"{len(result.not_built)} case(s) could not be built in a worker as the inventory "
                              "described them (listed above; the worker logs under --keep-work say more). This is "
                              "the probe's error, not a fact about the operators: no status was recorded for them and "
                              "the snapshot lists them as missing. Run again; if it persists, please report it.",
                              EXIT_TOOL)
    if result.eager_failures:
        print("\n" + "\n".join(result.eager_failures))
    if result.stopped:
        return report_failure(f"--stop-after ended the run with {result.stopped} case(s) not measured: the snapshot "
                              f"holds what was finished (complete: false); run the same command again to measure "
                              f"the rest", EXIT_STOPPED)
    if result.new_eager_failures:
        news = result.new_eager_failures
        return report_failure(f"{len(news)} case{'s' if len(news) != 1 else ''} failed eagerly ({', '.join(news[:3])}"
                              f"{', ...' if len(news) > 3 else ''}; not an eager failure the snapshot already "
                              f"recorded): fix the case or the environment (see the list above); the snapshot "
                              f"{'was written' if result.written else 'is unchanged'}", EXIT_EAGER)
    if result.eager_failures:
        print("(each of them failed eagerly in the snapshot already: no news, so the exit status is not 4)")
    return EXIT_OK
