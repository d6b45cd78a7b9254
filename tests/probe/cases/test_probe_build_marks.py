"""The marks between the cases a case module builds (cases/build_marks.py) as the build watch reads them: the
start of a discovery is a mark of its own type, so the watch rests while discovery runs, and a case whose name
spells what that mark once was (a string) is still a case, credited with what built it. A real watch over a
real module's import."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

pytestmark = pytest.mark.probe

HELPERS = textwrap.dedent("""\
    def make_first():
        return 1


    def discover_some():
        return 2


    def make_second():
        return 3
    """)
CASES = textwrap.dedent("""\
    from sphinx_kexport.probe.cases.build_marks import case_built, discovery_began

    import kx_marks_helpers as helpers

    helpers.make_first()
    case_built("\\0discovering")  # once the discovery mark's own words: here just a name
    discovery_began()
    helpers.discover_some()
    case_built(None)
    helpers.make_second()
    case_built("second")
    """)


def test_the_watch_rests_while_discovery_runs_and_no_name_is_taken_for_its_mark(tmp_path, monkeypatch):
    from sphinx_kexport.probe.base.code_digest import CodePlaces
    from sphinx_kexport.probe.cases.build_marks import DISCOVERY_BEGAN, listen
    from sphinx_kexport.probe.measure.build_watch import BuildWatch

    (tmp_path / "kx_marks_helpers.py").write_text(HELPERS)
    (tmp_path / "kx_marks_cases.py").write_text(CASES)
    monkeypatch.syspath_prepend(str(tmp_path))
    marks: list = []
    unlisten = listen(marks.append)
    try:
        with BuildWatch(CodePlaces(root=str(tmp_path)), [str(tmp_path)]) as watch:
            importlib.import_module("kx_marks_cases")
    finally:
        unlisten()
        for name in ("kx_marks_cases", "kx_marks_helpers"):
            sys.modules.pop(name, None)
    assert marks == ["\0discovering", DISCOVERY_BEGAN, None, "second"]
    assert marks[1] is DISCOVERY_BEGAN and not isinstance(marks[1], str)
    first, second = watch.code_of("\0discovering"), watch.code_of("second")
    assert any(ref.endswith("::make_first") for ref in first), first
    assert any(ref.endswith("::make_second") for ref in second), second
    assert not any(ref.endswith("::discover_some") for ref in {**first, **second}), (first, second)
