"""Run a library's own pytest tests in this process and record the calls each test's own code makes.

pytest runs in-process (``pytest.main``) with :class:`SuitePlugin`, while
:func:`~.recording.recording` stands in for the library's public callables. The
recorder takes a call when the frame that made it belongs to a file under the
tests' path (:func:`own_test_code`) and no ``pytest.raises`` block is open: a
call one library function makes to another comes from a library frame, and a
call inside ``pytest.raises`` is the test showing a failure on purpose. A call
during which a test's ``unittest.mock`` stand-in ran (:func:`stand_in_uses`)
shows the mock, not the library, and is no case either. Only
the call phase records (fixtures build the inputs; their calls are not the
test's).

How the suite runs: the tests' own ini file and conftest files, but none of its
``addopts`` (``-o addopts=``: no ``-n``, no coverage), plain asserts
(``--assert=plain``: pytest's assertion rewriting moves a call's source position
to its ``assert`` statement, and the repro reads the call from its position), no
cache, no random order, the network blocked for the whole run, each phase
(setup, call, teardown) stopped after ``time_limit`` seconds of CPU time, every
test from the same seed, and every test module imported from the same seed too
(parameters drawn at import are the same in every process), the parametrisations
of a test function parametrised over a ``set`` in the order of their ids
(:func:`in_stable_order`: not in the set's, which PYTHONHASHSEED decides). A
parametrisation with a device other than the CPU
(``torch.device("cuda")``, ``"cuda:0"``) or a dtype other than float32
(``torch.float64``, ``"float16"``) is deselected and reported: discovery runs on
the CPU in float32, as kornia's own conftest does by default. A test whose fixtures
set another default dtype (e3nn's autouse ``float_tolerance``) is set up but not run.

A test whose call phase fails runs once more without the recorder
(:func:`~.recording.originals_restored`): passing then, it is reported as failing
only under the probe's recorder, not as a failing test.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import io
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..recording.recording import RECORDER, Call, Wanted, first_line, originals_restored, seed_everything
from ....snapshot.vocabulary import CPU
from ...base.errors import ProbeError
from ...base.memory import reset_peak
from ...base.network import is_download_blocked, network_blocked
from ..sandbox import scratch_directory, time_limit, timeout_in

TEST_SEED = 0
# pytest exits 0 (passed), 1 (some failed) or 5 (none collected) after running what it could
PYTEST_RAN = (0, 1, 5)
CUDA_WORDS = ("cuda", "gpu")
DIRECT_PARAM = "get_direct_param_fixture_func"  # the fixture function pytest gives a directly parametrised argument
# the outcomes of a test whose own code raised (progress.TEST_WORDS)
RAISED_IN_TEST = ("failed", "recorder", "time limit", "network", "needs CUDA")
SHARED = ""  # the watch's context of what no one test file runs: conftests' imports, session fixtures


class SuiteError(ProbeError):
    """pytest could not run the library's tests at all (pytest missing, a usage or internal error); the
    message says why. :func:`cases_from_tests` raises it as a :class:`DiscoveryError`."""


@dataclass
class NodeSource:
    """What the repro snippet of a test's call is written from: the test function and how pytest called it."""

    nodeid: str
    rootdir: str  # pytest's rootdir: the node id is relative to it
    function: Any  # the test function (unbound, for a method of a test class)
    params: dict[str, Any]  # the parametrised arguments' values
    fixtures: dict[str, Any]  # fixture name -> the fixture's function, for the fixtures the test requested
    indirect: set[str] = field(default_factory=set)  # params that go to a fixture (``request.param``), not the test
    # fixture name -> the source of the value it gave the test, where that is exact (a device, a dtype, a number,
    # a small tensor): kornia's `device` fixture reads TEST_DEVICES, which no snippet can import
    values: dict[str, str] = field(default_factory=dict)


@dataclass
class NodeRun:
    """One test (one parametrisation) as it ran: its recorded calls, or why it yields nothing."""

    nodeid: str
    kind: str = ""  # "" when it passed; else a key of progress.TEST_WORDS
    detail: str = ""
    calls: list[Call] = field(default_factory=list)
    seconds: float = 0.0
    failed_in: str = ""  # the phase that failed (setup, call, teardown); "" when none did
    peak_kb: int = 0  # the most memory its process held while it ran and its calls became cases (0: unknown)

    @property
    def file(self) -> str:
        return self.nodeid.split("::", 1)[0]


# --------------------------------------------------------------------------
# pytest.raises: calls inside it are not cases


_RAISES = {"open": 0}


class _Guarded:
    """``pytest.raises(...)`` as a context manager, counting the open blocks."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __enter__(self) -> Any:
        _RAISES["open"] += 1
        return self.inner.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        _RAISES["open"] -= 1
        return self.inner.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextlib.contextmanager
def raises_watched() -> Iterator[None]:
    """Replace ``pytest.raises`` (before the test files import it) with one that counts its open blocks; a
    callable passed to it (``pytest.raises(E, fn, x)``) runs inside one too."""
    import pytest

    original = pytest.raises

    def raises(*args: Any, **kwargs: Any) -> Any:
        if len(args) > 1:  # the callable form runs the call itself
            _RAISES["open"] += 1
            try:
                return original(*args, **kwargs)
            finally:
                _RAISES["open"] -= 1
        return _Guarded(original(*args, **kwargs))

    for attr in ("Exception",):  # pytest.raises.Exception, as some suites read it
        if hasattr(original, attr):
            setattr(raises, attr, getattr(original, attr))
    pytest.raises = raises
    try:
        yield
    finally:
        pytest.raises = original
        _RAISES["open"] = 0


# --------------------------------------------------------------------------
# unittest.mock: a call during which the test's stand-in ran shows the mock, not the library (kornia's
# TestAugmentationBase2D.test_forward replaces apply_transform and three more methods with mocks). A stand-in
# that did not run leaves the call alone: kornia's tests/feature/test_mkd.py patches torch.hub's download in
# every test, and get_grid_dict never downloads.


@dataclass
class _Patch:
    key: tuple[int, str]  # (id of the patch, what it replaces)
    counter: Any  # the mock that counts the stand-in's runs (_counted), None when it is no mock
    library: bool  # whether what it replaces is the library's own code


_PATCHES: list[_Patch] = []  # the patches active now, outermost first


def _patched_name(patch: Any) -> str:
    """``kornia.contrib.ImageStitcher.on_matcher`` for a patch of that class attribute; an instance's patch is
    named by its class (``AugmentationBase2D.apply_transform``)."""
    target = getattr(patch, "target", None)
    if inspect.ismodule(target):
        owner = target.__name__
    elif inspect.isclass(target):
        owner = f"{target.__module__}.{target.__qualname__}"
    else:
        owner = type(target).__qualname__
    return f"{owner}.{getattr(patch, 'attribute', '?')}"


def _in_library(target: Any, library: list[str]) -> bool:
    """Whether the module, class or object a patch changes is defined in a file under ``library``."""
    if not inspect.ismodule(target):
        target = sys.modules.get((target if inspect.isclass(target) else type(target)).__module__)
    return str(getattr(target, "__file__", None) or "").startswith(tuple(library))


@contextlib.contextmanager
def patches_watched(library: list[str]) -> Iterator[None]:
    """Keep :func:`stand_in_uses` up to date while the tests run: ``patch(...)``, ``patch.object(...)``, as a
    decorator, a ``with`` block or ``start()`` / ``stop()`` (and pytest-mock's ``mocker``, built on them) all
    enter and leave through ``_patch.__enter__`` / ``__exit__``."""
    from unittest import mock

    cls = mock._patch
    enter, leave = cls.__enter__, cls.__exit__

    def watched_enter(self: Any) -> Any:
        result = enter(self)
        name, counter = _patched_name(self), _counted(result)
        if counter is None:
            name += " (no mock, so whether it ran cannot be counted: taken as run)"
        _PATCHES.append(_Patch((id(self), name), counter, _in_library(getattr(self, "target", None), library)))
        return result

    def watched_exit(self: Any, *exc: Any) -> Any:
        for index in range(len(_PATCHES) - 1, -1, -1):
            if _PATCHES[index].key[0] == id(self):
                del _PATCHES[index]
                break
        return leave(self, *exc)

    cls.__enter__, cls.__exit__ = watched_enter, watched_exit
    try:
        yield
    finally:
        cls.__enter__, cls.__exit__ = enter, leave
        _PATCHES.clear()


def stand_in_uses() -> dict[tuple[int, str], int | None]:
    """The active patches' stand-ins -> how often each has run: a mock counts its calls and its children's (a
    property mock counts its reads; an autospec'd function carries its mock). Of any other stand-in nothing
    can be counted: None (taken as run) where it replaces the library's code, left out where it does not."""
    uses: dict[tuple[int, str], int | None] = {}
    for patch in _PATCHES:
        if patch.counter is not None:
            uses[patch.key] = len(patch.counter.mock_calls)
        elif patch.library:
            uses[patch.key] = None
    return uses


def _counted(stand_in: Any) -> Any:
    """The mock that counts a stand-in's runs: itself, or the one an autospec'd function carries (asked of
    the function only: a mock answers any attribute, ``mock`` too, with a new child)."""
    from unittest import mock

    if isinstance(stand_in, mock.NonCallableMock):
        return stand_in
    carried = getattr(stand_in, "mock", None) if inspect.isfunction(stand_in) else None
    return carried if isinstance(carried, mock.NonCallableMock) else None


def own_test_code(roots: list[str], library: list[str]) -> Callable[[Any], bool]:
    """The recorder's test of a frame: code of a file under ``roots`` but not under ``library`` (directories end
    with a separator: a tests path that holds the library itself still leaves its calls to itself out), and no
    ``pytest.raises`` block open."""
    prefixes, excluded = tuple(roots), tuple(library)

    def own(frame: Any) -> bool:
        if _RAISES["open"]:
            return False
        filename = frame.f_code.co_filename
        return filename.startswith(prefixes) and not (excluded and filename.startswith(excluded))

    return own


def library_roots(top: str) -> list[str]:
    """The folders (or the file) of the imported top-level package ``top``, as :func:`suite_roots` writes them."""
    module = sys.modules.get(top)
    places = list(getattr(module, "__path__", []) or []) or [getattr(module, "__file__", "") or ""]
    return [root for place in places if place for root in suite_roots(Path(place))]


def suite_roots(path: Path) -> list[str]:
    """The prefixes a test file's name starts with: the path as given and resolved (a symlinked checkout)."""
    found = []
    for variant in (path.absolute(), path.resolve()):
        found.append(str(variant) + (os.sep if variant.is_dir() else ""))
    return list(dict.fromkeys(found))


# --------------------------------------------------------------------------
# what a test's outcome says


def _other_device_or_dtype(item: Any) -> tuple[str, str] | None:
    """(kind, detail) when the item is parametrised for a device other than the CPU or a dtype other than
    float32; None when it runs."""
    import torch

    callspec = getattr(item, "callspec", None)
    for name, value in sorted(getattr(callspec, "params", {}).items()):
        lowered = name.lower()
        if isinstance(value, torch.device) or (isinstance(value, str) and "device" in lowered):
            kind = str(value).split(":")[0]
            if kind != CPU:
                return "needs CUDA", f"parametrised with {name}={value} (discovery runs on the CPU)"
        if isinstance(value, torch.dtype) and value != torch.float32:
            return "other dtype", f"{name}={value}"
        if isinstance(value, str) and "dtype" in lowered and value.removeprefix("torch.") not in ("float32", "float"):
            return "other dtype", f"{name}={value}"
    return None


def _is_cuda_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "cuda" in text and any(w in text for w in ("not compiled", "no cuda gpus", "driver", "not available"))


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "").strip().splitlines()[-1] if longrepr else ""


def outcome(report: Any, excinfo: Any) -> tuple[str, str]:
    """(kind, detail) of one phase's report; ("", "") when it passed."""
    where = "" if report.when == "call" else f" (in {report.when})"
    if report.skipped:
        if hasattr(report, "wasxfail"):
            return "failed", f"marked xfail{': ' + report.wasxfail if report.wasxfail else ''}"
        reason = _skip_reason(report)
        if any(word in reason.lower() for word in CUDA_WORDS):
            return "needs CUDA", f"skipped: {reason}"
        return "skipped", reason
    if not report.failed:
        return "", ""
    exc = excinfo.value if excinfo is not None else None
    timeout = timeout_in(exc)
    if timeout is not None:
        return "time limit", f"{timeout}{where}"
    if exc is not None and is_download_blocked(exc):
        return "network", f"{first_line(exc)}{where}"
    if exc is not None and _is_cuda_error(exc):
        return "needs CUDA", f"{first_line(exc)}{where}"
    text = first_line(exc) if exc is not None else _skip_reason(report)
    return "failed", f"{text}{where}"


def fixture_values(item: Any) -> dict[str, str]:
    """The exact source of each fixture value the test of ``item`` is given (read as its call begins, before the
    test can change them; pytest drops them after teardown)."""
    from ...cases.literals import literal_source

    found = {}
    for name, value in (getattr(item, "funcargs", None) or {}).items():
        text = literal_source(value)
        if text is not None and not text.startswith("torch.rand"):  # a stand-in of a big tensor is not its value
            found[name] = text
    return found


def node_source(item: Any, values: dict[str, str] | None = None) -> NodeSource:
    """How the test of ``item`` was called (read from pytest's item; ``_fixtureinfo`` is how pytest itself
    knows which fixture function gives each argument); ``values``: its fixtures' (``fixture_values``)."""
    callspec = getattr(item, "callspec", None)
    params = dict(getattr(callspec, "params", {}))
    fixtures: dict[str, Any] = {}
    indirect: set[str] = set()
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
    for name, defs in definitions.items():
        if defs and name not in params:
            fixtures[name] = defs[-1].func
        elif defs and getattr(defs[-1].func, "__name__", "") != DIRECT_PARAM:
            indirect.add(name)  # parametrize(..., indirect=True): the test gets what the fixture makes of it
    return NodeSource(item.nodeid, str(item.config.rootpath), getattr(item, "function", None), params, fixtures,
                      indirect, {k: v for k, v in (values or {}).items() if k in fixtures})


# --------------------------------------------------------------------------
# the plugin and the run


# (the test's run, how it was called, tests done, tests to run)
OnTest = Callable[[NodeRun, NodeSource, int, int], None]


def in_stable_order(items: list[Any]) -> list[Any]:
    """The tests in pytest's order, but the parametrisations of a test function parametrised over a ``set``
    sorted by their ids: their order is the set's, which PYTHONHASHSEED decides (e3nn's ``random_params()``),
    and the first configurations kept of an operator (``per_operator``) would then differ from run to run, and
    with them the cases and their fingerprints. Those over a list keep the list's order."""
    ordered: list[Any] = []
    run: list[Any] = []

    def flush() -> None:
        ordered.extend(sorted(run, key=_natural) if run and _over_a_set(run[0]) else run)
        run.clear()

    def function(item: Any) -> tuple[str, str]:
        return (getattr(item.parent, "nodeid", ""), getattr(item, "originalname", item.name))

    for item in items:
        if run and function(run[-1]) != function(item):
            flush()
        run.append(item)
    flush()
    return ordered


def _over_a_set(item: Any) -> bool:
    marks = item.iter_markers("parametrize") if hasattr(item, "iter_markers") else []
    return any(isinstance(mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues"), (set, frozenset))
               for mark in marks)


def _natural(item: Any) -> list[Any]:
    """``test[x2]`` before ``test[x10]``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", item.nodeid)]


class SuitePlugin:
    """Records each test's calls and outcome; ``on_test(run, source, done, total)`` is called as each test ends."""

    def __init__(self, roots: list[str], library: list[str], limit: float, on_test: OnTest,
                 wanted: Wanted | None = None, only: set[str] | None = None, watch: Any = None,
                 on_begin: Callable[[str], None] | None = None, chosen: Callable[[str], bool] | None = None):
        self.own = own_test_code(roots, library)
        self.watch = watch  # a CodeWatch told which test file runs (its contexts: SHARED and each file's node id)
        self.on_begin = on_begin  # told each test's node id as it begins
        self.only = only  # the node ids of a shard's tests (None: all)
        self.chosen = chosen  # which tests include / exclude take (None: all)
        self.nodes: list[str] = []  # the tests that run, in order
        self.wanted = wanted
        self.limit = limit
        self.on_test = on_test
        self.runs: list[NodeRun] = []  # in the order pytest reports them
        self.order: dict[str, int] = {}  # node id -> its place in pytest's collection
        self.total = 0
        self.done = 0
        self.rootdir = ""
        self.current: NodeRun | None = None
        self.rerunning = False  # a failed test runs again without the recorder (_again_without_recorder)
        self.values: dict[str, dict[str, str]] = {}  # node id -> its fixtures' values (fixture_values)

    def pytest_configure(self, config: Any) -> None:
        self.rootdir = str(config.rootpath)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and not self._left_out(report.nodeid):
            text = str(report.longrepr).strip().splitlines()
            detail = next((line.removeprefix("E   ").strip() for line in reversed(text) if line.startswith("E ")),
                          text[-1] if text else "")
            self.runs.append(NodeRun(report.nodeid, "file failed", detail[:300]))

    def _left_out(self, nodeid: str) -> bool:
        """A test file that include / exclude leave out (a conftest's or a folder's error is always said)."""
        return self.chosen is not None and nodeid.endswith(".py") and not self.chosen(nodeid)

    def pytest_collectstart(self, collector: Any) -> None:
        # a test module that draws its parametrisations at import (e3nn's random_params()) draws the same ones
        # in every process, whichever files were collected before it: a test's node id names the same test in
        # the worker that runs it alone as in the discovery that found it
        if type(collector).__name__ == "Module":
            seed_everything(TEST_SEED)
            self._context(collector.nodeid)  # what its import runs is its file's

    def pytest_collection_finish(self, session: Any) -> None:
        self._context(SHARED)

    def _context(self, name: str) -> None:
        if self.watch is not None:
            self.watch.switch(name)

    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Iterator[Any]:
        """A session or package fixture is set up in the first test that asks for it, for all that follow:
        what it runs is every test file's (SHARED), not that first test's file's."""
        if self.watch is None or fixturedef.scope not in ("session", "package"):
            return (yield)
        before = self.watch.context
        self._context(SHARED)
        try:
            return (yield)
        finally:
            self._context(before)

    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        kept, dropped = [], []
        if self.chosen is not None:  # left out by include / exclude: not this discovery's tests at all
            dropped = [item for item in items if not self.chosen(item.nodeid)]
            items[:] = [item for item in items if self.chosen(item.nodeid)]
        items[:] = in_stable_order(items)
        self.order = {item.nodeid: index for index, item in enumerate(items)}
        for item in items:
            why = _other_device_or_dtype(item)
            if why is None:
                kept.append(item)
            else:
                dropped.append(item)
                self.runs.append(NodeRun(item.nodeid, *why))
        self.nodes = [item.nodeid for item in kept]
        if self.only is not None:  # a shard: the other tests are other shards', said there
            dropped += [item for item in kept if item.nodeid not in self.only]
            kept = [item for item in kept if item.nodeid in self.only]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        self.total = len(kept)

    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Iterator[Any]:
        self.current = run = NodeRun(item.nodeid)
        reset_peak()  # each test's own peak (on_test reads it once its calls are cases)
        self._context(run.file)
        if self.on_begin is not None:
            self.on_begin(item.nodeid)
        began = time.monotonic()
        seed_everything(TEST_SEED)
        try:
            result = yield
            if run.failed_in == "call":
                self._again_without_recorder(item, nextitem, run)
            if run.kind in RAISED_IN_TEST:  # its exception, traceback and frames form cycles: free them now
                gc.collect()
            return result
        finally:
            run.seconds = time.monotonic() - began
            self.runs.append(run)
            self.current = None
            self.done += 1
            try:
                self.on_test(run, node_source(item, self.values.pop(item.nodeid, None)), self.done, self.total)
            except Exception as exc:  # the cases of one test must not stop the others
                run.kind, run.detail = "failed", f"turning its calls into cases failed: {first_line(exc)}"
            finally:
                run.calls = []  # the cases hold copies of what they need: a suite's calls are not kept to the end
                self._context(SHARED)  # building its cases (a call run again outside the test) was its file's

    def _again_without_recorder(self, item: Any, nextitem: Any, run: NodeRun) -> None:
        """Run a test whose call failed once more with the library as it is without the recorder: passing then,
        it failed only under recording (the probe's limitation, not the test's failure; its calls are no cases)."""
        from _pytest.runner import runtestprotocol

        self.rerunning = True
        try:
            with originals_restored():
                seed_everything(TEST_SEED)
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
        finally:
            self.rerunning = False
        if any(r.when == "call" and r.passed for r in reports) and not any(r.failed for r in reports):
            run.kind = "recorder"  # the detail stays the error it raised under recording (the kind says the rest)
            run.calls.clear()

    def pytest_runtest_setup(self, item: Any) -> Iterator[Any]:
        with time_limit(self.limit):
            return (yield)

    def pytest_runtest_call(self, item: Any) -> Iterator[Any]:
        run = self.current
        try:
            if self.rerunning:  # the run without the recorder
                with time_limit(self.limit):
                    return (yield)
            _not_in_float32(run)
            self.values[item.nodeid] = fixture_values(item)
            with time_limit(self.limit, from_new_calls=True):
                RECORDER.begin(run.calls if run is not None else [], self.own, self.wanted, stand_in_uses)
                try:
                    return (yield)
                finally:
                    RECORDER.end()
        finally:
            _forget_last_failure()

    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Iterator[Any]:
        with time_limit(self.limit):
            return (yield)

    def pytest_runtest_makereport(self, item: Any, call: Any) -> Iterator[Any]:
        report = yield
        run = self.current
        if run is not None and not run.kind and not self.rerunning:
            run.kind, run.detail = outcome(report, call.excinfo)
            if report.failed and run.kind == "failed":
                run.failed_in = report.when
        return report


def _not_in_float32(run: NodeRun | None) -> None:
    """Skip the test (pytest's skip, raised before its call phase) when its fixtures left another default dtype
    than float32 (e3nn's autouse ``float_tolerance`` sets float64): every call it made would run in that dtype,
    and no such call is recorded (suite_cases.other_dtype), so running it would only cost time and memory (e3nn's
    ``test_square_normalization`` in float64 needs 4 GB)."""
    import torch

    dtype = torch.get_default_dtype()
    if dtype == torch.float32 or run is None:
        return
    run.kind = "other dtype"
    run.detail = f"its fixtures set the default dtype to {dtype}, so its calls would run in it: not run"
    import pytest

    raise pytest.skip.Exception(run.detail)


def _forget_last_failure() -> None:
    """Drop pytest's post-mortem record of the test's failure (``sys.last_traceback`` and co., kept until the
    next test's call): its frames hold the test's tensors while the calls become cases and the next test sets
    up (e3nn's ``test_square_normalization``, stopped at its time limit, held 2 GB so)."""
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)


def _as_hooks(plugin: SuitePlugin) -> SuitePlugin:
    """Mark the plugin's wrappers for pluggy (done here: pytest is imported only when tests run)."""
    import pytest

    cls = type(plugin)
    marks = {name: {"wrapper": True} for name in ("pytest_runtest_protocol", "pytest_runtest_setup",
                                                  "pytest_runtest_call", "pytest_runtest_teardown",
                                                  "pytest_runtest_makereport")}
    marks["pytest_collection_modifyitems"] = {"trylast": True}  # after the suite's own selection
    marks["pytest_fixture_setup"] = {"wrapper": True}
    for name, options in marks.items():
        function = vars(cls)[name]
        if not hasattr(function, "pytest_impl"):  # what pytest.hookimpl sets
            setattr(cls, name, pytest.hookimpl(**options)(function))
    return plugin


@dataclass
class SuiteRun:
    runs: list[NodeRun]
    rootdir: str
    total: int  # tests that ran
    nodes: list[str] = field(default_factory=list)  # the tests that run in a whole run, in order (not a shard's)
    order: dict[str, int] = field(default_factory=dict)  # node id -> its place in pytest's collection


def pytest_arguments(targets: list[str]) -> list[str]:
    """How discovery calls pytest on ``targets`` (paths or node ids)."""
    return [*targets, "-o", "addopts=", "--assert=plain", "-p", "no:cacheprovider", "-p", "no:randomly",
            "--continue-on-collection-errors", "-q", "--no-header"]


def run_suite(targets: list[str], roots: list[str], library: list[str], limit: float, on_test: OnTest,
              wanted: Wanted | None = None, *, only: set[str] | None = None, collect_only: bool = False,
              watch: Any = None, on_begin: Callable[[str], None] | None = None,
              chosen: Callable[[str], bool] | None = None) -> SuiteRun:
    """Run the tests of ``targets`` under the recorder (installed by the caller), calling ``on_test`` as each
    ends; calls from files under ``roots`` count, except those under ``library``, and of those the ones
    ``wanted`` takes (all when None). ``only``: the node ids of the tests to run (a shard's), the others
    deselected; ``collect_only``: run none, collect them (``SuiteRun.nodes``). SuiteError when pytest cannot run
    them. ``watch``: a CodeWatch that records what each test file's tests (their collection, their fixtures)
    ran, each file in its own context (``SHARED`` the rest); ``on_begin(node id)`` as each test begins;
    ``chosen(node id)``: whether a test is one the caller's include / exclude take (the others are left out
    unsaid, their files' import errors too). The test
    modules it imports are
    dropped from ``sys.modules`` afterwards, and ``sys.path`` is restored, so a second run imports them afresh."""
    try:
        import pytest
    except ImportError:
        raise SuiteError("running the library's tests needs pytest, which is not installed here: "
                         "pip install \"sphinx-kexport[probe]\" (it installs pytest), or pip install pytest; "
                         "and whatever else the tests need") from None

    import torch

    plugin = _as_hooks(SuitePlugin(roots, library, limit, on_test, wanted, only, watch, on_begin, chosen))
    modules, path = set(sys.modules), list(sys.path)
    # what a test or a conftest may set for the whole process and forget (a worker measures other cases
    # afterwards; kornia's conftest points torch.hub and HF_HOME at a relative folder of its own)
    dtype, grad, hub, environment = torch.get_default_dtype(), torch.is_grad_enabled(), torch.hub.get_dir(), \
        dict(os.environ)
    os.environ.pop("PYTEST_ADDOPTS", None)  # the user's own pytest options are not discovery's (put back below)
    output, errors = io.StringIO(), _Copied(sys.stderr)
    try:  # pytest's report would mix into discover's own on stdout; its errors still show on stderr
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors), raises_watched(), \
                patches_watched(library), network_blocked(), scratch_directory():
            if watch is not None:
                watch.start()
            try:
                status = pytest.main(pytest_arguments(targets) + (["--collect-only"] if collect_only else []),
                                     plugins=[plugin])
            finally:
                if watch is not None:
                    watch.stop()
    finally:
        sys.path[:] = path
        _forget_test_modules(modules, roots)
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)
        torch.hub.set_dir(hub)
        os.environ.clear()
        os.environ.update(environment)
    said = output.getvalue() + errors.copy.getvalue()
    if int(status) == 2 and "KeyboardInterrupt" in said:
        raise KeyboardInterrupt  # pytest caught the Ctrl-C that was meant for the probe
    if int(status) not in PYTEST_RAN:
        tail = "\n".join(said.strip().splitlines()[-8:])
        raise SuiteError(f"pytest could not run the tests of {', '.join(targets)} (exit status {int(status)}):\n"
                         f"{tail}")
    # in pytest's collection order (deselected ones are reported at collection; a file that failed to import, by
    # its path, goes first)
    runs = sorted(plugin.runs, key=lambda run: plugin.order.get(run.nodeid, -1))
    return SuiteRun(runs, plugin.rootdir, plugin.total, plugin.nodes, plugin.order)


class _Copied:
    """A stream that writes through to ``stream`` and keeps a copy (what pytest said on stderr, for an error)."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _forget_test_modules(before: set[str], roots: list[str]) -> None:
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None) or ""
        if file.startswith(tuple(roots)) or os.path.basename(file) == "conftest.py":
            del sys.modules[name]
