"""The code watch on real torch: it rests while dynamo compiles, and still names what dynamo traced."""

from __future__ import annotations

import sys
import textwrap

import pytest

pytestmark = [pytest.mark.probe]
torch = pytest.importorskip("torch")
pytest.importorskip("coverage")

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


@pytest.fixture
def watched(tmp_path, monkeypatch):
    package = tmp_path / "watchedlib"
    package.mkdir()
    (package / "__init__.py").write_text(LIBRARY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "watchedlib", raising=False)
    import watchedlib

    watch = CodeWatch(CodePlaces("watchedlib", str(package), str(tmp_path)), [str(package)])
    yield watchedlib, watch
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
    watch.start()
    assert line_tracer_on()
    traced = SpeedPass(run, opset=18, budget=5.0).measure("compile", lambda: captured(x))
    watch.lines(False)  # what the worker does around every speed step
    assert not line_tracer_on()
    untraced = SpeedPass(run, opset=18, budget=5.0).measure("compile", lambda: captured(x))
    assert traced["figures"] and untraced["figures"]
    assert (traced["untraced"], untraced["untraced"]) == (False, True)


def test_the_watch_keeps_a_core_that_records_contexts_whatever_coverage_core_says(watched, monkeypatch):
    # coverage's sys.monitoring core (the default from Python 3.14, or COVERAGE_CORE=sysmon from 3.12) drops
    # switch_context's contexts, so each test file's code would be lost: the watch asks for the settrace core
    library, watch = watched
    monkeypatch.setenv("COVERAGE_CORE", "sysmon")
    watch.start()
    try:
        watch.switch("tests/test_a.py")
        library.outer(torch.ones(2))
        watch.switch("tests/test_b.py")
        library.eager_only(torch.ones(2))
    finally:
        watch.stop()
    assert watch._coverage.config.core == "ctrace"
    by_context = watch.code_by_context()
    assert {ref.split("::")[-1] for ref in by_context["tests/test_a.py"]} >= {"inner", "outer"}
    assert "eager_only" not in {ref.split("::")[-1] for ref in by_context["tests/test_a.py"]}
    assert "eager_only" in {ref.split("::")[-1] for ref in by_context["tests/test_b.py"]}
