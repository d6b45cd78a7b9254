"""The code watch on real torch: it rests while dynamo compiles, and still names what dynamo traced; it records
the same functions as a line tracer (coverage.py) would, each case and context on its own."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.probe]
torch = pytest.importorskip("torch")

from sphinx_kexport.probe.base.code_digest import CodePlaces  # noqa: E402
from sphinx_kexport.probe.measure.code_watch import CodeWatch  # noqa: E402

LIBRARY = textwrap.dedent('''
    import torch

    SCALE = 2


    def inner(x):
        return torch.sin(x) * SCALE


    def outer(x):
        return inner(x) + 1


    def eager_only(x):
        return x - 1
''')


def _library(tmp_path, monkeypatch, name, source):
    """(the package ``name`` imported from ``source``, its folder, a watch on it)."""
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    module = __import__(name)
    return module, package, CodeWatch(CodePlaces(name, str(package), str(tmp_path)), [str(package)])


@pytest.fixture
def watched(tmp_path, monkeypatch):
    library, _, watch = _library(tmp_path, monkeypatch, "watchedlib", LIBRARY)
    yield library, watch
    watch.stop()


def test_the_tracer_rests_while_dynamo_compiles_and_the_traced_code_is_named(watched):
    library, watch = watched
    from torch._dynamo.callback import callback_handler

    seen: list[tuple[str, bool]] = []
    torch._dynamo.reset()  # drops every callback: the watch registers its own again when it starts
    watch.start()
    start = callback_handler.register_start_callback(lambda *_: seen.append(("start", watch._tracing)))
    end = callback_handler.register_end_callback(lambda *_: seen.append(("end", watch._tracing)))
    try:
        compiled = torch.compile(library.outer, fullgraph=True, backend="eager")
        compiled(torch.ones(2))
        library.eager_only(torch.ones(2))  # traced by lines again once the compile ended
        code = watch.code()
    finally:
        callback_handler.remove_start_callback(start)
        callback_handler.remove_end_callback(end)
    assert seen == [("start", False), ("end", True)]
    assert {"watchedlib/__init__.py::outer", "watchedlib/__init__.py::inner",
            "watchedlib/__init__.py::eager_only"} <= set(code)
    # one ref for the names the functions read, however they were seen (dynamo's trace or the tracer's lines)
    assert [ref for ref in code if "::global" in ref] == ["watchedlib/__init__.py::global SCALE inner torch"]


def test_a_compile_while_the_owner_paused_the_tracer_does_not_resume_it(watched):
    library, watch = watched
    torch._dynamo.reset()
    watch.start()
    watch.lines(False)  # the worker's compile step
    torch.compile(library.outer, fullgraph=True, backend="eager")(torch.ones(2))
    assert watch._tracing is False
    watch.lines(True)
    assert watch._tracing is True


def test_the_speed_pass_says_whether_the_tracer_was_on_while_it_timed(watched):
    # timing eager with the line tracer on reads eager slower than it is (the exporters' speed-ups too large):
    # the record says what the speed pass saw, and a --speed run measures a record that says "traced" again
    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.measure.case_run import CaseRun
    from sphinx_kexport.probe.measure.speed import SpeedPass, line_tracer_on

    library, watch = watched
    run = CaseRun(case("outer", library.outer, [torch.ones(4)], package="watchedlib"), "cpu")
    captured = torch.compile(library.outer, fullgraph=True, backend="eager")
    x = torch.ones(4)
    # under Python 3.11 the watch's hook is a trace function (called at each frame, it slows eager); from 3.12
    # on a sys.monitoring tool called once per function, which slows nothing and is no tracer
    hook_slows = sys.version_info < (3, 12)
    watch.start()
    assert line_tracer_on() is hook_slows
    traced = SpeedPass(run, opset=18, budget=5.0).measure("compile", lambda: captured(x))
    watch.lines(False)  # what the worker does around every speed step
    assert not line_tracer_on()
    untraced = SpeedPass(run, opset=18, budget=5.0).measure("compile", lambda: captured(x))
    assert traced["figures"] and untraced["figures"]
    assert (traced["untraced"], untraced["untraced"]) == (not hook_slows, True)



NESTED = textwrap.dedent('''
    import torch

    SCALE = 2


    def inner(x):
        return torch.sin(x) * SCALE


    def outer(x):
        def closure(y):
            return inner(y) + 1
        return closure(x) + sum(v for v in [1, 2])


    class Box:
        def __init__(self, k):
            self.k = k

        def forward(self, x):
            return outer(x) * self.k


    def counting(n):
        for i in range(n):
            yield i


    def shared(x):
        return x * 3


    def compiled_only(x):
        return x + 1


    def step(x):
        if torch.compiler.is_compiling():
            return compiled_only(x)
        return x + 2


    def each_case(n, begin):
        for i in range(n):
            begin(i)


    def never(x):
        return x
''')


def _workload(library, begin):
    """Two cases, as the worker runs them (``begin(name)`` starts each): ``shared`` and a generator run in the
    first case and again in the second, where they do not start again (the generator resumes), and a
    library helper that begins each case in turn (it runs on in each)."""
    x = torch.ones(2)
    library.Box(2).forward(x)
    library.shared(x)
    numbers = library.counting(3)
    next(numbers)
    library.each_case(2, lambda i: begin(f"case {i}"))
    library.shared(x)
    next(numbers)
    library.step(x)


def _line_refs(watch, package, library):
    """``{context: {ref: digest}}`` as coverage.py's line tracer sees the same workload (what the watch
    recorded before it was a function-start hook): each line mapped to the outermost function it is in."""
    coverage = pytest.importorskip("coverage")
    tracer = coverage.Coverage(data_file=None, config_file=False, include=[os.path.join(str(package), "*")])
    tracer.set_option("run:core", "ctrace")  # the core that keeps contexts
    tracer.start()
    try:
        _workload(library, tracer.switch_context)
    finally:
        tracer.stop()
    data = tracer.get_data()
    found: dict[str, dict[str, set]] = {}
    for path in data.measured_files():
        digests = watch.digests.of_file(path)
        for line, contexts in (data.contexts_by_lineno(path) or {}).items():
            for context in contexts or [""]:
                found.setdefault(context, {}).setdefault(os.path.realpath(path), set()).add(
                    digests.function_at(line))
    return {context: watch._refs(files) for context, files in found.items()}


@pytest.fixture
def nested(tmp_path, monkeypatch):
    library, package, watch = _library(tmp_path, monkeypatch, "nestedlib", NESTED)
    yield library, package, watch
    watch.stop()


def test_the_watch_records_what_a_line_tracer_records_in_each_context(nested):
    library, package, watch = nested
    watch.start()
    try:
        _workload(library, watch.switch)
    finally:
        watch.stop()
    recorded = {context: refs for context, refs in watch.code_by_context().items() if refs}
    by_lines = {context: refs for context, refs in _line_refs(watch, package, library).items() if refs}
    assert recorded == by_lines
    names = {context: {ref.split("::")[-1] for ref in refs} for context, refs in recorded.items()}
    # nested functions count as the outermost one; what ran before and in each case is in each
    assert names[""] >= {"Box.__init__", "Box.forward", "outer", "inner", "shared", "counting", "each_case"}
    assert names["case 1"] >= {"each_case", "shared", "counting", "step"}
    assert not {"never", "compiled_only"} & set().union(*names.values())


def test_a_case_started_afresh_records_what_the_last_one_ran_too(nested):
    # the worker starts the watch once per case: a function that ran in the last case (its events switched
    # off after their first call there) is recorded in the next one
    library, _, watch = nested
    x = torch.ones(2)
    found = []
    for _ in range(2):
        watch.start()
        library.shared(x)
        library.Box(3).forward(x)
        found.append(watch.code())
        watch.stop()
    assert found[0] == found[1]
    assert "nestedlib/__init__.py::shared" in found[1]


def test_a_helper_only_dynamo_runs_is_recorded(nested):
    library, _, watch = nested
    torch._dynamo.reset()
    watch.start()
    try:
        torch.compile(library.step, fullgraph=True, backend="eager")(torch.ones(2))
        code = watch.code()
    finally:
        watch.stop()
    assert {"nestedlib/__init__.py::step", "nestedlib/__init__.py::compiled_only"} <= set(code)
