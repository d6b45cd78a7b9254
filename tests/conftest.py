"""Shared pytest configuration: Sphinx's own testing fixtures (app, make_app, rootdir)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("sphinx.testing.fixtures",)

REPO = Path(__file__).resolve().parent.parent
ROOTS = Path(__file__).resolve().parent / "page" / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Scenario projects live in tests/page/roots/test-<name>/ (sphinx.testing convention)."""
    return ROOTS


@pytest.fixture(scope="module")
def build_once(tmp_path_factory):
    """Build a scenario project once for a whole test module.

    ``build_once("basic", "html", confoverrides={...})`` copies
    tests/page/roots/test-basic to a fresh folder, builds it with a fresh
    environment and returns the SphinxTestApp (status and warning streams
    captured, as with sphinx.testing's ``app`` fixture). The same arguments
    give the same app within the module. The app's global docutils state is
    cleaned up right after the build (two live apps would clash); its outputs,
    environment and streams stay readable.
    """
    import shutil
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    apps: dict[str, SphinxTestApp] = {}

    def build(root: str, builder: str = "html", **kwargs) -> SphinxTestApp:
        key = repr((root, builder, sorted(kwargs.items())))
        if key not in apps:
            src = tmp_path_factory.mktemp(f"{root}-{builder}") / "src"
            shutil.copytree(ROOTS / f"test-{root}", src)
            app = SphinxTestApp(builder, srcdir=src, freshenv=True, status=StringIO(), warning=StringIO(),
                                **kwargs)
            try:
                app.build()
            finally:
                app.cleanup()
            apps[key] = app
        return apps[key]

    return build


@pytest.fixture(scope="session")
def theme_sites(tmp_path_factory):
    """tests/page/roots/test-browser built in every theme, once for the whole session:
    (folder holding one sub-folder per theme, {theme: warnings}). Browser modules share it.

    Once for the whole run, not once per xdist worker: the browser modules land on different workers, and each
    worker built the four themes again. The first worker to ask builds them into the run's shared temporary
    folder (the parent of the workers' own), holding a lock the others wait on; they then read the same
    folder. Without xdist, or without fcntl, the session's own folder."""
    import json
    import os

    from browser_support import build_themes

    try:
        import fcntl
    except ImportError:  # not Linux or macOS: a build per worker, as before
        fcntl = None
    if fcntl is None or not os.environ.get("PYTEST_XDIST_WORKER"):
        out = tmp_path_factory.mktemp("browser-site")
        return out, build_themes(out)
    shared = tmp_path_factory.getbasetemp().parent  # pytest-of-<user>/pytest-<n>/: this run's, its workers'
    out, record = shared / "browser-site", shared / "browser-site.json"
    with open(shared / "browser-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not record.exists():
            record.write_text(json.dumps(build_themes(out)), encoding="utf-8")
        return out, json.loads(record.read_text(encoding="utf-8"))


# Browser modules define a module-scoped ``site`` (the built HTML folder);
# these two serve it and drive it, one server and one Chromium per module.
@pytest.fixture(scope="module")
def base_url(site):
    from browser_support import serve

    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def driver():
    from browser_support import chromium

    with chromium() as d:
        yield d


# Test modules that take longest, heaviest first: with `--dist loadfile` each module runs on one worker, and
# xdist deals the modules in this order (`--no-loadscope-reorder` in pyproject.toml: its default deals the modules
# with most tests first, which put the probe's long modules of a few tests each, test_gate_action.py's four
# probe runs among them, at the end of the run, where one worker finished alone while the others idled). The
# CPU seconds of each module in a whole run (KEXPORT_TEST_CPU below, benchmarks/suite_cpu.py), 8 December 2026;
# only an order: a module not named here runs after them, in the order pytest collects it.
LONGEST_FIRST = (
    "test_gate_action",  # four probe runs with --speed: minutes on one worker
    "test_probe_discovery_cache", "test_probe_repro_cli", "test_probe_dynamic", "test_probe_suite",
    "test_probe_suite_code_cache", "test_example_docs", "test_probe_run", "test_probe_repro_pasted",
    "test_probe_docstrings", "test_probe_resume", "test_probe_sparse", "test_run_survey",
    "test_probe_time_limits",  # waits on its limits more than it computes
    "test_probe_speed", "test_probe_case_build", "test_probe_suite_under_recording",
    "test_probe_random_sizes_and_numbers", "test_browser_axe", "test_probe_containers", "test_probe_failure_words",
    "test_probe_docstrings_scale", "test_browser", "test_workflows", "test_probe_unreadable_modules",
    "test_probe_suite_memory", "test_probe_statuses_at_the_edges", "test_probe_suite_shards", "test_browser_layout",
    "test_probe_suite_cache_key", "test_probe_dynamic_reruns", "test_browser_features", "test_probe_code_gate",
    "test_probe_terminal", "test_repro_snippets",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).stem, len(rank)))  # stable: the rest keep order


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the CPUs. The probe tests spend much of their time waiting on the
    probe's child processes and on time limits running out; a third worker on two cores keeps both busy
    (one worker per core left a quarter of the CPU time idle)."""
    import os

    return (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1) + 1


# `KEXPORT_TEST_CPU=FILE pytest ...` appends one JSON line per test (setup, call and teardown) to FILE: the CPU
# seconds the worker spent, those of its child processes (the ones it waited for, and what the live ones, such
# as the probe's fork server kept across tests, and their own finished children spent meanwhile), and the wall
# seconds. Wall time on a busy machine says little about what a test costs; CPU time is what the suite's two
# cores share out. benchmarks/suite_cpu.py sums it per module.
def _descendants_cpu() -> float:
    """CPU seconds of this process's live descendants, with what their finished children spent (Linux /proc)."""
    import os

    parent_of, spent = {}, {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        except OSError:  # gone meanwhile
            continue
        parent_of[int(entry.name)] = int(fields[1])
        spent[int(entry.name)] = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    me, total = os.getpid(), 0
    for pid in parent_of:
        ancestor = parent_of[pid]
        while ancestor > 1 and ancestor != me:
            ancestor = parent_of.get(ancestor, 0)
        if ancestor == me:
            total += spent[pid]
    return total / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    import os

    record = os.environ.get("KEXPORT_TEST_CPU")
    if not record:
        yield
        return
    import json
    import resource
    import time

    def cpu() -> tuple[float, float]:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        live = _descendants_cpu() if os.path.isdir("/proc") else 0.0
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime + live

    (own0, kids0), wall0 = cpu(), time.perf_counter()
    yield
    (own1, kids1), wall1 = cpu(), time.perf_counter()
    with open(record, "a", encoding="utf-8") as out:  # one short line per write: appends do not interleave
        out.write(json.dumps({"test": item.nodeid, "cpu_self": round(own1 - own0, 3),
                              "cpu_children": round(kids1 - kids0, 3), "wall": round(wall1 - wall0, 3)}) + "\n")
