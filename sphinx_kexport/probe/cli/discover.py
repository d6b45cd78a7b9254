"""``discover PACKAGE``: what the package's docstring examples yield as cases, object by object; with
``--tests PATH``, what the library's own tests under PATH yield, test file by test file.

Nothing is dropped silently: every object with an example (every test) is listed
with its cases or the reason it has none (no tensor call, the example raised, it
tried to download, it ran past the time limit, its cases repeat hand-written ones,
doctest cannot parse its docstring; for a test: no public tensor call, its calls
repeat configurations already kept, it failed, it fails only under the recorder,
its calls do not run outside it, it needs the network or CUDA, it
ran past its time limit, pytest skipped it, another dtype, its file does not
import, its calls' tensors are too large to keep), then the library's testing helpers it left out (with why) and
the totals. The hand-written cases come from the configured case
sources (``cases`` of ``[tool.sphinx-kexport]``, or ``--cases``).
"""

from __future__ import annotations

import argparse

import sys
from pathlib import Path
from typing import Any

from .common import EXIT_OK, report_failure
from ..discover.progress import TEST_WORDS
from ..discover.progress import WORDS as SKIP_WORDS
from ..discover.progress import to_stderr


# its line in the list of commands that --help prints
SUMMARY = "what a package's docstring examples (or its tests) yield as cases"


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("discover", help=SUMMARY, description=(
        "Run the docstring examples of PACKAGE and its public submodules and print, per object, the cases "
        "cases_from_docstrings(PACKAGE) yields or why it yields none, then totals. Discovered cases that repeat "
        "a hand-written case (the same object, under any of its public names, and input shapes) are reported; "
        "the hand-written one wins."))
    parser.add_argument("package", metavar="PACKAGE", help="import name, e.g. kornia.filters")
    parser.add_argument("--include", action="append", default=[], metavar="PATTERN",
                        help="only objects whose dotted name equals, starts with or matches PATTERN (repeatable); "
                             "with --tests, a PATTERN with a /, a :: or ending in .py selects test files or tests "
                             "(tests/nn/test_conv.py, test_conv.py, nn/, a node id, tests/nn/*). A PATTERN naming "
                             "the library's testing helpers (PACKAGE.testing) surveys them: else they are left "
                             "out, and listed")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                        help="skip objects whose dotted name equals, starts with or matches PATTERN "
                             "(repeatable); a module left out is not imported. With --tests, a PATTERN with a /, "
                             "a :: or ending in .py leaves test files or tests out")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="seconds of CPU time per example (default 60), or per phase of a test counted from its "
                             "last call of a new configuration (default 10): a test past it keeps the calls it "
                             "made before")
    parser.add_argument("--tests", metavar="PATH",
                        help="run the library's pytest tests under PATH (a folder or a file) instead of the docstring "
                             "examples, and list per test file what cases_from_tests(PACKAGE, PATH) yields")
    parser.add_argument("--per-operator", type=int, default=None, metavar="N",
                        help="with --tests: configurations kept per operator (default 3)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="with --tests: shards of the tests run at once, each in a child process (default: CPU "
                             "count, max 8; 1 runs them in this process, in a row)")
    parser.add_argument("--cases", action="append", metavar="MODULE_OR_FILE",
                        help="hand-written case sources to check for repeats (replaces `cases` of pyproject.toml)")
    parser.add_argument("--no-cases", action="store_true", help="do not load any hand-written cases")
    parser.add_argument("--config", metavar="PYPROJECT", help="pyproject.toml to read instead of the nearest")
    parser.add_argument("--fresh", action="store_true",
                        help="run the examples even when the discovery cache holds them, and replace its entry "
                             "(KEXPORT_DISCOVERY_CACHE=off turns the cache off)")
    parser.set_defaults(run=run_discover)


def _hand_written(args: Any, docstring_cases: bool = False) -> tuple[list[Any], str]:
    """The configured hand-written cases (and docstring cases, when asked: they win over the tests' too) and where
    they came from ("" when none are configured)."""
    from ..survey.config import ConfigError, find_pyproject, read_table
    from ..cases.loader import load_cases, resolve_sources
    from ..discover.suite.suite import suite_cases_left_out

    cwd = Path.cwd()
    if args.no_cases:
        return [], ""
    if args.cases:
        entries, root = args.cases, cwd
    else:
        pyproject = Path(args.config).resolve() if args.config else find_pyproject(cwd)
        if pyproject is None or not pyproject.is_file():
            if args.config:
                raise ConfigError(f"--config {args.config}: no such file")
            return [], ""
        table = read_table(pyproject)
        entries = table.get("cases", [])
        entries = [entries] if isinstance(entries, str) else list(entries)
        root = pyproject.parent
    if not entries:
        return [], ""
    with suite_cases_left_out():  # a case module's own cases_from_tests would run a whole test suite for nothing
        specs = load_cases(resolve_sources([str(e) for e in entries], root))
    return ([s for s in specs if not s.discovered or (docstring_cases and s.from_docstring)],
            ", ".join(str(e) for e in entries))


def _case_text(spec: Any) -> str:
    shapes = ", ".join("(" + ",".join(str(d) for d in t.shape) + ")" for t in spec.inputs)
    return f"{spec.name} -> {spec.ref} [{shapes}]{'' if spec.check else ' random'}"


def run_discover(args: argparse.Namespace) -> int:
    # a line at once, before torch and the library are imported (minutes can pass before the first example)
    what = f"its tests under {args.tests}" if args.tests else "its docstring examples"
    print(f"discovering {args.package}: importing it, then running {what} (or loading them from the discovery "
          "cache)", file=sys.stderr, flush=True)
    from ..run.settings import limit_threads, thread_share
    from ..survey.config import ConfigError

    limit_threads(thread_share(1))  # before torch: the examples' CPU-time limit counts work, as in a survey
    from ..discover.docstrings.docstrings import DEFAULT_TIME_LIMIT, discover, duplicate_of
    from ..discover.library import MODULE_WIDE, DiscoveryError
    from ..cases.loader import LoadError

    if args.time_limit is not None and args.time_limit <= 0:
        return report_failure(f"--time-limit must be a positive number of seconds, found {args.time_limit:g}")
    if args.per_operator is not None and not args.tests:
        return report_failure("--per-operator counts the configurations kept from the tests: give --tests PATH too")
    if args.per_operator is not None and args.per_operator < 1:
        return report_failure(f"--per-operator must be 1 or more, found {args.per_operator}")
    if args.jobs is not None and not args.tests:
        return report_failure("--jobs shards the library's tests: give --tests PATH too")
    if args.jobs is not None and args.jobs < 1:
        return report_failure(f"--jobs must be 1 or more, found {args.jobs}")
    if args.tests and not Path(args.tests).exists():
        return report_failure(f"--tests {args.tests}: no such file or folder (looked in {Path.cwd()}). Give the "
                              "folder (or file) of the library's pytest tests.")
    try:
        hand, where = _hand_written(args, docstring_cases=bool(args.tests))
    except (ConfigError, LoadError) as exc:
        return report_failure(f"{exc}\n(the hand-written cases are loaded to find repeats; pass --no-cases to skip them)")
    if args.fresh:  # after the hand-written cases: their modules' own discoveries may come from the cache
        from ..discover.cache import refresh

        refresh()
    if args.tests:
        return _discover_tests(args, hand, where)
    try:
        found = discover(args.package, include=args.include, exclude=args.exclude,
                         time_limit=args.time_limit or DEFAULT_TIME_LIMIT, on_example=to_stderr())
    except DiscoveryError as exc:
        return report_failure(str(exc))
    out = sys.stdout
    kept = repeats = 0
    for report in found.objects:
        fresh, repeated = [], []
        for spec in report.cases:
            twin = duplicate_of(spec, hand)
            (repeated if twin is not None else fresh).append((spec, twin))
        if report.cases and not fresh:
            report.skip = "duplicate"
        kept += len(fresh)
        repeats += len(repeated)
        if report.skip and report.skip != "duplicate":
            out.write(f"{report.ref}: no case: {SKIP_WORDS[report.skip]}: {report.detail}\n")
            continue
        out.write(f"{report.ref}: {len(fresh)} case{'s' if len(fresh) != 1 else ''}"
                  f"{' (repeats hand-written cases)' if report.skip == 'duplicate' else ''}\n")
        for spec, _ in fresh:
            out.write(f"    {_case_text(spec)}\n")
        for spec, twin in repeated:
            out.write(f"    {_case_text(spec)}: repeats the hand-written {twin.name!r}, not kept\n")
        for dropped in report.dropped:
            out.write(f"    not a case: {dropped}\n")
    skipped = found.skipped()
    examples = sum(1 for r in found.objects if r.skip not in MODULE_WIDE)
    reasons = ", ".join(f"{skipped[k]} {SKIP_WORDS[k]}" for k in SKIP_WORDS if skipped[k]) or "none"
    out.write(f"\n{args.package}: {examples} objects with examples, {kept} cases"
              f"{f' (+{repeats} repeating hand-written cases from {where})' if repeats else ''}; "
              f"objects without a case: {reasons}; {found.seconds:.1f} s\n")
    out.write(f"{found.cache}\n")
    return EXIT_OK


def _discover_tests(args: Any, winners: list[Any], where: str) -> int:
    """``discover PACKAGE --tests PATH``: per test file, each test's cases or why none, then the totals."""
    from ..discover.docstrings.docstrings import duplicate_of
    from ..discover.library import DiscoveryError
    from ..discover.suite.suite import DEFAULT_PER_OPERATOR, DEFAULT_TEST_TIME_LIMIT, discover_suite
    from ..survey.config import default_jobs

    try:
        found = discover_suite(args.package, args.tests, include=args.include, exclude=args.exclude,
                               time_limit=args.time_limit or DEFAULT_TEST_TIME_LIMIT,
                               per_operator=args.per_operator or DEFAULT_PER_OPERATOR, on_test=to_stderr(),
                               jobs=args.jobs or default_jobs())
    except DiscoveryError as exc:
        return report_failure(str(exc))
    out = sys.stdout
    kept = repeats = 0
    for file, reports in found.files().items():
        cases = sum(len(r.cases) for r in reports)
        if len(reports) == 1 and reports[0].ref == file:  # the file itself: it did not import
            report = reports[0]
            out.write(f"{file}: no case: {TEST_WORDS[report.skip]}: {report.detail}\n")
            continue
        out.write(f"{file}: {len(reports)} test{'s' if len(reports) != 1 else ''}, "
                  f"{cases} case{'s' if cases != 1 else ''}\n")
        for report in reports:
            test = report.ref.split("::", 1)[1] if "::" in report.ref else report.ref
            fresh = []
            for spec in report.cases:
                twin = duplicate_of(spec, winners)
                if twin is None:
                    fresh.append(spec)
                    out.write(f"    {test}: {_case_text(spec)}\n")
                else:
                    out.write(f"    {test}: {_case_text(spec)}: repeats the {twin.origin} case {twin.name!r}, "
                              "not kept\n")
            if report.cases and not fresh:
                report.skip = "duplicate"
            kept += len(fresh)
            repeats += len(report.cases) - len(fresh)
            if report.skip and report.skip != "duplicate":
                out.write(f"    {test}: no case: {TEST_WORDS[report.skip]}: {report.detail}\n")
            for dropped in report.dropped:
                out.write(f"    {test}: not a case: {dropped}\n")
    for failure in found.import_failures:
        out.write(f"{failure.ref}: {SKIP_WORDS[failure.skip]}: {failure.detail}\n")
    skipped = found.skipped()
    reasons = ", ".join(f"{skipped[k]} {TEST_WORDS[k]}" for k in TEST_WORDS if skipped[k]) or "none"
    tests = sum(1 for r in found.reports if r.skip != "file failed")
    files = len(found.files())
    heaviest = max(found.reports, key=lambda r: r.peak_kb, default=None)
    if heaviest is not None and heaviest.peak_kb:  # the test to look at when discovery runs short of memory
        out.write(f"most memory: {heaviest.ref} ({heaviest.peak_kb / 2**20:.1f} GB at the peak of the process "
                  "that ran it)\n")
    out.write(f"\n{args.package} from {args.tests}: {tests} test{'s' if tests != 1 else ''} in {files} "
              f"file{'s' if files != 1 else ''}, {kept} case{'s' if kept != 1 else ''}"
              f"{f' (+{repeats} repeating hand-written or docstring cases from {where})' if repeats else ''}; "
              f"tests without a case: {reasons}; {found.seconds:.1f} s\n")
    out.write(f"{found.cache}\n")
    return EXIT_OK
