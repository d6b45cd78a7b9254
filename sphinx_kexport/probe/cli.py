"""``python -m sphinx_kexport.probe``: refresh the snapshot; ``merge``, ``diff`` and ``repro`` subcommands.

Exit status: 0 when the survey ran (failing cases are data, not errors),
1 when ``diff`` finds a regression or ``merge`` refuses a gap, 2 for a
mistake in the configuration, the case modules or the command line (a
message says what to fix; no traceback), 3 when the probe itself could not
run, 4 when the survey ran and wrote the snapshot but some probed cases do
not run eagerly (a problem with the case or the environment, such as a
broken install: they are listed at the end and recorded as ``n/a`` at
stage ``eager``), 130 when interrupted (rerun the same command to resume).
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

PROG = "python -m sphinx_kexport.probe"
EXIT_OK, EXIT_REGRESSED, EXIT_USAGE, EXIT_TOOL, EXIT_EAGER, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_STATUS_HELP = (
    "Exit status: 0 the survey ran (failing cases are data); 2 a mistake in the configuration, the case "
    "modules or the command line; 3 the probe itself could not run; 4 the survey ran and wrote the snapshot, "
    "but some cases failed eagerly (a problem with the case or the environment; listed at the end); "
    "130 interrupted.")


class UsageError(Exception):
    """A mistake the user can fix; printed as one message, exit status 2."""


def report_failure(message: str, code: int = EXIT_USAGE) -> int:
    print(f"sphinx-kexport probe: error: {message}", file=sys.stderr)
    return code


class CliParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: same format, status 2
        self.print_usage(sys.stderr)
        raise SystemExit(report_failure(message))


def probe_parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=(
        "Probe every registered case through ONNX, torch.export and torch.compile and write the snapshot. "
        "Without flags it reads the [tool.sphinx-kexport] table of the nearest pyproject.toml (keys: cases, "
        "out, devices, library, jobs, timeout, opset, dynamic). Subcommands: `merge OUT PART...`, `diff OLD NEW`, "
        "`repro SNAPSHOT CASE --path onnx|export|compile [--device cpu|cuda]`, "
        "`discover PACKAGE` (what its docstring examples yield as cases)."),
        epilog="Interrupted or killed? Run the same command again: finished cases are not re-run. "
               + EXIT_STATUS_HELP)
    parser.add_argument("--cases", action="append", metavar="MODULE_OR_FILE",
                        help="case module, .py file or directory (repeatable; replaces `cases`)")
    parser.add_argument("--out", metavar="PATH", help="snapshot to write (replaces `out`)")
    parser.add_argument("--device", action="append", choices=("cpu", "cuda"),
                        help="device to probe (repeatable; replaces `devices`); other devices' results "
                             "already in the snapshot are kept")
    parser.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: CPU count, max 8)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="per case; a case past it is recorded as failed (default 300)")
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="probe only cases whose name equals or starts with PATTERN, or whose package is "
                             "PATTERN (repeatable; * and ? are wildcards); the others keep their results")
    parser.add_argument("--opset", type=int, metavar="N", help="ONNX opset (default 18)")
    parser.add_argument("--shard", metavar="K/N",
                        help="probe the K-th of N deterministic slices of the cases and write a part for "
                             "`merge` (default output: <out>.shard-K-of-N.json)")
    parser.add_argument("--library", metavar="NAME",
                        help="import name of the surveyed library (replaces `library`)")
    parser.add_argument("--config", metavar="PYPROJECT", help="pyproject.toml to read instead of the nearest")
    parser.add_argument("--fresh", action="store_true",
                        help="measure every selected case again: ignore the results already in the snapshot and "
                             "the finished records of an interrupted run, and run the docstring examples again "
                             "(refreshing the discovery cache)")
    parser.add_argument("--keep-work", action="store_true",
                        help="keep the work directory of per-case records after writing the snapshot")
    parser.add_argument("--no-dynamic", action="store_true",
                        help="skip the dynamic-batch pass (each supported path captured again with a dynamic "
                             "batch and run at another batch size); same as `dynamic = false`")
    parser.add_argument("--stats", metavar="PATH", help="write run statistics (timings, worker memory) as JSON")
    return parser


# --------------------------------------------------------------------------
# probe


def _matches(spec: Any, pattern: str) -> bool:
    if any(ch in pattern for ch in "*?"):
        return fnmatch.fnmatchcase(spec.name, pattern) or fnmatch.fnmatchcase(spec.package, pattern)
    return (spec.name == pattern or spec.name.startswith(pattern) or spec.package == pattern
            or spec.package.startswith(pattern + "."))


def _infer_library(specs: list[Any]) -> str:
    tops = collections.Counter(spec.package.split(".")[0] for spec in specs if spec.package)
    return tops.most_common(1)[0][0] if tops else ""


def _torch_version() -> str:
    import torch  # already imported by the case modules

    return torch.__version__


def _previous_snapshot(out: Path, notes: list[str]) -> dict[str, Any] | None:
    from ..snapshot import SnapshotError, read_snapshot

    if not out.exists():
        return None
    try:
        data, _ = read_snapshot(out)
        return data
    except SnapshotError as exc:
        notes.append(f"the existing {out.name} cannot be read, so none of its results are kept ({exc})")
        return None


def _shard_cache(config: Any, notes: list[str]) -> dict[str, Any] | None:
    """A shard reuses results from its own earlier part, else from the project's snapshot."""
    for path in (config.out, config.base_out):
        if path is not None and path.exists():
            return _previous_snapshot(path, notes)
    return None


def run_probe(args: argparse.Namespace) -> int:
    from .config import ConfigError, build_config

    try:
        config = build_config(args, Path.cwd())
    except ConfigError as exc:
        return report_failure(str(exc))

    from .loader import LoadError, load_inventory, resolve_sources

    if config.fresh:  # docstring examples run again too, and replace their discovery cache entries
        from .discovery_cache import refresh

        refresh()
    try:
        sources = resolve_sources(config.cases, config.root)
        specs, repeats = load_inventory(sources)
    except LoadError as exc:
        return report_failure(f"{exc}\nNothing was run.")
    if repeats:
        shown = ", ".join(f"{d.name} (= {h.name})" for d, h in repeats[:5]) + (", ..." if len(repeats) > 5 else "")
        print(f"note: {len(repeats)} docstring case(s) repeat a hand-written case and are not probed: {shown}")

    from .environment import cuda_available, library_info, tool_versions
    from .locate import NO_LIBRARY, library_root

    library = config.library or _infer_library(specs)
    root = library_root(library)
    if config.library and root is NO_LIBRARY:
        return report_failure(f"library {config.library!r} (set by `library` or --library) cannot be imported; "
                     "install it, or fix the import name. Nothing was run.")
    if "cuda" in config.devices and not cuda_available():
        import torch

        built = f"torch {torch.__version__} " + ("has CUDA support but sees no GPU" if torch.version.cuda
                                                  else "is a CPU-only build")
        return report_failure(f"--device cuda: this machine has no usable CUDA device ({built}). Probe cuda on a GPU "
                     "machine and merge, or drop cuda from `devices`. Nothing was written.")

    selected = [s for s in specs if not config.only or any(_matches(s, p) for p in config.only)]
    if not selected:
        return report_failure(f"no case matches --only {' '.join(config.only)} (the case modules register {len(specs)} "
                     "cases). Nothing was run.")
    if config.shard:
        chosen = {id(s) for s in selected}  # by identity: CaseSpec equality would compare tensors
        matching = len(selected)
        selected = [s for i, s in enumerate(specs) if config.shard.selects(i) and id(s) in chosen]
        if not selected:  # not a mistake: a CI matrix has more shards than this selection has cases
            which = f"of the {matching} cases matching --only {' '.join(config.only)}" if config.only else \
                f"of the {len(specs)} cases"
            print(f"shard {config.shard} holds none {which}; writing an empty part for `merge`", flush=True)

    info = library_info(library, root.directory if root is not NO_LIBRARY else "")
    try:
        return _survey(config, sources, specs, selected, root, info, tool_versions())
    except KeyboardInterrupt:
        print("\ninterrupted: rerun the same command to resume (finished cases are kept)", file=sys.stderr)
        return EXIT_INTERRUPTED


def _survey(config: Any, sources: list[Any], specs: list[Any], selected: list[Any], root: Any,
            info: dict[str, str], tools: dict[str, str]) -> int:
    from ..snapshot import SnapshotError
    from .environment import utc_now
    from .fingerprint import reusable_keys
    from .measure import skipped
    from .progress import Progress, eager_summary, summary_table
    from .reuse import reusable_results
    from .runner import Runner, Task, ToolError
    from .store import WorkDir, work_dir_for

    work = WorkDir(work_dir_for(config.out))
    if config.fresh:
        work.remove()
    notes: list[str] = []
    previous = None if config.shard else _previous_snapshot(config.out, notes)
    cache = None if config.fresh else previous if not config.shard else _shard_cache(config, notes)
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    stamps: dict[tuple[str, str], dict[str, str]] = {}
    tasks: list[Task] = []
    reused: list[dict[str, Any]] = []  # from the work directory of an interrupted run
    cached: list[dict[str, Any]] = []  # from the snapshot
    skips: list[tuple[Any, str]] = []
    for device in config.devices:
        reusable = reusable_results(cache, device, tools, config.opset, info["version"])
        for spec in selected:
            keys = reusable_keys(spec, device, config.opset, info["version"], tools, config.dynamic)
            key = keys[0]
            if spec.skip:
                skips.append((spec, device))
                stamps[(spec.name, device)] = {"fingerprint": key, "measured_at": utc_now()}
                continue
            record = next(filter(None, (work.finished_record(spec.name, device, k) for k in keys)), None)
            hit = reusable.get(spec.name)
            if record is not None:
                measured[(spec.name, device)] = record["results"]
                stamps[(spec.name, device)] = {"fingerprint": record["fingerprint"],
                                               "measured_at": str(record.get("measured_at") or utc_now())}
                reused.append(record["results"])
            elif hit is not None and hit.fingerprint in keys:
                measured[(spec.name, device)] = hit.results
                stamps[(spec.name, device)] = {"fingerprint": hit.fingerprint, "measured_at": hit.measured_at}
                cached.append(hit.results)
            else:
                tasks.append(Task(spec.name, device, key, ["onnx", "export", "compile"]))

    total = len(tasks) + len(reused) + len(cached) + len(skips)
    jobs = min(config.jobs, max(1, len(tasks)))
    progress = Progress(total)
    where = f" (shard {config.shard})" if config.shard else ""
    print(f"probing {len(selected)} of {len(specs)} cases on {', '.join(config.devices)}{where} with "
          f"{jobs} worker(s); records in {work.path}", flush=True)
    progress.resumed(len(reused), reused)
    progress.reused(len(cached), cached, config.out.name if not config.shard else "the snapshot")
    for spec, device in skips:
        measured[(spec.name, device)] = skipped(spec)
        progress.finished(spec.name, device, measured[(spec.name, device)], 0.0, measured=False)

    settings = {"sys_path": list(sys.path), "sources": [(s.module, s.path_entry, s.label, s.found_in_directory)
                                                        for s in sources],
                "origins": {spec.name: spec.origin for spec in specs},  # a worker imports one case module at a time
                "library": root.name, "opset": config.opset, "dynamic": config.dynamic,
                "threads": max(1, (os.cpu_count() or 1) // jobs)}

    seconds: dict[str, float] = {}

    def finished(task: Task) -> None:
        results = {p: task.results[p] for p in ("onnx", "export", "compile")}
        measured[(task.name, task.device)] = results
        stamps[(task.name, task.device)] = {"fingerprint": task.fingerprint, "measured_at": utc_now()}
        seconds[f"{task.name} [{task.device}]"] = round(task.seconds, 3)
        progress.finished(task.name, task.device, results, task.seconds)

    runner = Runner(work=work, settings=settings, jobs=jobs, timeout=config.timeout, root=root,
                    on_start=lambda t: progress.started(t.name, t.device), on_finish=finished,
                    on_note=progress.note)
    began = time.monotonic()
    try:
        try:
            if tasks:
                work.path.mkdir(parents=True, exist_ok=True)
                runner.run(tasks)
        except ToolError as exc:
            return report_failure(f"{exc}\nFinished cases are kept in {work.path}; rerun to resume.", EXIT_TOOL)
        finally:
            progress.close()
        snapshot, notes, written = _write_snapshot(config, specs, measured, info, work, previous, stamps, notes,
                                                   measured_any=bool(tasks) or bool(reused))
    except SnapshotError as exc:  # a bug in the probe, not in the user's cases
        return report_failure(f"the snapshot does not validate, not writing it: {exc}", EXIT_TOOL)
    finally:
        runner.close()  # the workers were told to stop; they exited while the snapshot was assembled
    wall = time.monotonic() - began
    if not config.keep_work:
        work.remove()

    for note in notes:
        print(f"note: {note}")
    print()
    print(summary_table(snapshot["cases"], list(snapshot["environments"])), end="")
    state = "complete" if snapshot["complete"] else f"incomplete: {len(snapshot['missing'])} cases missing"
    print(f"\nmeasured {len(tasks)}, reused {len(cached) + len(reused)} (unchanged since the snapshot: "
          f"{len(cached)}, from the interrupted run: {len(reused)}), skipped {len(skips)}")
    if written:
        print(f"wrote {config.out} ({len(snapshot['cases'])} cases, {state})")
    else:  # a rerun that measured nothing: no diff of timestamps in the committed file
        print(f"nothing was measured and nothing changed: left {config.out} as it was ({len(snapshot['cases'])} "
              f"cases, {state})")
    probed = {spec.name for spec in selected}
    eager = eager_summary([c for c in snapshot["cases"] if c["name"] in probed], config.devices)
    if config.stats:
        stats = {"wall_seconds": round(wall, 3), "measured": len(tasks), "reused": len(reused),
                 "reused_snapshot": len(cached), "skipped": len(skips), "jobs": jobs,
                 "workers": runner.worker_peaks(), "case_seconds": seconds}
        config.stats.parent.mkdir(parents=True, exist_ok=True)
        config.stats.write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    if eager:
        print("\n" + "\n".join(eager))
        return report_failure(f"{eager[0].split(' failed eagerly')[0]} failed eagerly: fix the case or the environment "
                              f"(see the list above); the snapshot {'was written' if written else 'is unchanged'}", EXIT_EAGER)
    return EXIT_OK


def _write_snapshot(config: Any, specs: list[Any], measured: dict[tuple[str, str], dict[str, Any]],
                    info: dict[str, str], work: Any, previous: dict[str, Any] | None,
                    stamps: dict[tuple[str, str], dict[str, str]], notes: list[str], measured_any: bool = True
                    ) -> tuple[dict[str, Any], list[str], bool]:
    """Assemble the snapshot (carrying over what this run did not measure) and write it, unless this run
    measured nothing and nothing changed; (snapshot, notes, written). Raises SnapshotError."""
    from ..snapshot import dump_snapshot
    from .assemble import build_snapshot
    from .environment import device_environment

    environments = {}
    for device in config.devices:
        # written by a worker of this run, or of the interrupted run whose records (same tool
        # versions, by their fingerprints) were reused
        env = work.environment(device)
        if env is None or env.get("opset") != config.opset or env.get("torch") != _torch_version():
            env = device_environment(device, config.opset)  # no worker ran: every case was skipped
        environments[device] = env
    snapshot, more = build_snapshot(specs=specs, measured=measured, environments=environments, library=info,
                                    previous=previous, stamps=stamps)
    notes += more
    if not measured_any and previous is not None and _timeless(snapshot) == _timeless(previous):
        # a rerun that measured nothing leaves the committed file as it was, not a diff of timestamps
        return previous, notes, False
    dump_snapshot(snapshot, config.out)
    return snapshot, notes, True


def _timeless(snapshot: dict[str, Any]) -> str:
    """The snapshot without the times a run stamps even when it measures nothing (when it was written,
    when each environment was probed, when each skip entry was recorded)."""
    copy = json.loads(json.dumps(snapshot))
    copy.pop("generated_at", None)
    for env in copy.get("environments", {}).values():
        if isinstance(env, dict):
            env.pop("probed_at", None)
    for case in copy.get("cases", []):
        for stamp in (case.get("measured") or {}).values():
            if isinstance(stamp, dict):
                stamp.pop("measured_at", None)
    return json.dumps(copy, sort_keys=True)


# --------------------------------------------------------------------------
# merge and diff


def run_merge(argv: list[str]) -> int:
    parser = CliParser(prog=f"{PROG} merge", description=(
        "Combine shard outputs (and per-device runs) into one snapshot. The parts must share the case "
        "inventory, library and tool versions; a case no part measured is refused unless --allow-incomplete."))
    parser.add_argument("out", metavar="OUT")
    parser.add_argument("parts", nargs="+", metavar="PART")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="write the snapshot anyway, marked complete: false with the missing case names")
    args = parser.parse_args(argv)
    from .merge import MergeError, MergeGap, merge_command

    try:
        result = merge_command(Path(args.out), [Path(p) for p in args.parts], args.allow_incomplete)
    except MergeGap as exc:
        return report_failure(f"{exc} Nothing was written.", EXIT_REGRESSED)
    except MergeError as exc:
        return report_failure(f"{exc} Nothing was written.")
    for note in result.notes:
        print(f"note: {note}")
    state = "complete" if not result.missing else f"incomplete: {len(result.missing)} cases missing"
    print(f"wrote {args.out} ({len(result.snapshot['cases'])} cases from {len(args.parts)} parts, {state})")
    return EXIT_OK


def run_diff(argv: list[str]) -> int:
    parser = CliParser(prog=f"{PROG} diff", description=(
        "List per case, device and path what regressed (supported -> mismatch/fail), what was fixed and what "
        "changed between two snapshots. Exit status 1 when anything regressed."))
    parser.add_argument("old", metavar="OLD")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("--device", action="append", choices=("cpu", "cuda"), help="compare only this device")
    args = parser.parse_args(argv)
    from ..snapshot import SnapshotError, read_snapshot
    from ..snapshot.diff import KINDS, compare, count, regressed

    try:
        old, _ = read_snapshot(args.old)
        new, _ = read_snapshot(args.new)
    except SnapshotError as exc:
        return report_failure(str(exc))
    changes = compare(old, new, args.device)
    for kind in KINDS:
        group = [c for c in changes if c.kind == kind]
        if group:
            print(f"{kind} ({len(group)}):")
            for change in group:
                print(f"  {change.describe()}")
    counts = count(changes)
    print(", ".join(f"{counts[k]} {k}" for k in KINDS) if changes else "no differences")
    return EXIT_REGRESSED if regressed(changes) else EXIT_OK


def run_repro(argv: list[str]) -> int:
    parser = CliParser(prog=f"{PROG} repro", description=(
        "Print the Python snippet that reproduces one cell of a snapshot (what the page offers for it): it "
        "rebuilds the case's callable and inputs, runs the path and compares with eager."))
    parser.add_argument("snapshot", metavar="SNAPSHOT")
    parser.add_argument("case", metavar="CASE", help="the case's name, as in the snapshot (e.g. 'warp[reflect]')")
    parser.add_argument("--path", required=True, choices=("onnx", "export", "compile"))
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    args = parser.parse_args(argv)
    import difflib

    from ..snapshot import PATH_LABELS, SnapshotError, read_snapshot
    from ..snapshot.repro import repro_code

    try:
        data, _ = read_snapshot(args.snapshot)
    except SnapshotError as exc:
        return report_failure(str(exc))
    cases = {c["name"]: c for c in data["cases"]}
    if args.case not in cases:
        close = difflib.get_close_matches(args.case, list(cases), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return report_failure(f"{args.snapshot} has no case {args.case!r} ({len(cases)} cases).{hint}")
    case = cases[args.case]
    if args.device not in data["environments"]:
        return report_failure(f"{args.snapshot} holds no {args.device} results (devices: "
                     f"{', '.join(data['environments']) or 'none'}); choose one with --device")
    if not case.get("call"):
        return report_failure(f"case {args.case!r} in {args.snapshot} records no call to rebuild it from (a skip= case, a "
                     "target without an importable path, or a snapshot in Kornia's format)")
    result = case.get("results", {}).get(args.device, {}).get(args.path, {})
    title = f"{args.case}: {PATH_LABELS[args.path]} on {args.device}"
    if result:
        title += f", recorded {result['status']}" + (f" ({result['detail']})" if result.get("detail") else "")
    opset = int(data["environments"][args.device].get("opset") or 18)
    print(repro_code(case["call"], args.path, args.device, opset, " ".join(title.split()),
                     check=bool(case.get("check", True))), end="")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "merge":
            return run_merge(argv[1:])
        if argv and argv[0] == "diff":
            return run_diff(argv[1:])
        if argv and argv[0] == "repro":
            return run_repro(argv[1:])
        if argv and argv[0] == "discover":
            from .discover_cli import run_discover

            return run_discover(argv[1:])
        return run_probe(probe_parser().parse_args(argv))
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
