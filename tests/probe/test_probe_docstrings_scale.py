"""Docstring discovery at a library's scale: memory freed between examples, several packages in one survey.

Each test writes a tiny real library into tmp_path, runs the real discovery
and the real case loader on it.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")


def write_library(root, name, files):
    for relative, text in files.items():
        path = root / name / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def test_an_example_s_objects_are_freed_before_the_next_example_runs(tmp_path):
    # a_build's example keeps a Marker in its namespace; b_check's example (run next: dotted-name order)
    # fails unless that Marker is gone by then
    write_library(tmp_path, "memlib_kx", {"__init__.py": '''
        import weakref

        ALIVE = weakref.WeakSet()


        class Marker:
            def __init__(self):
                ALIVE.add(self)


        def a_build(x):
            """Double.

            >>> kept = Marker()
            >>> a_build(torch.ones(2))
            tensor([2., 2.])
            """
            return 2 * x


        def b_check(x):
            """Triple.

            >>> assert len(ALIVE) == 0, "the previous example's objects are still alive"
            >>> b_check(torch.ones(2))
            tensor([3., 3.])
            """
            return 3 * x
        '''})
    from sphinx_kexport.probe.docstrings import discover

    found = discover("memlib_kx", time_limit=5)
    reports = {r.ref: r for r in found.objects}
    assert reports["memlib_kx.b_check"].skip == "", reports["memlib_kx.b_check"].detail
    assert [c.name for c in found.cases] == ["a_build[doc]", "b_check[doc]"]


TWIN_OPS = '''
    def scale(x, factor=2.0):
        """Scale.

        >>> scale(torch.ones({n}), factor=3.0).shape
        torch.Size([{n}])
        """
        return x * factor
    '''


def test_two_packages_that_share_a_callable_name_get_distinct_case_names(tmp_path):
    write_library(tmp_path, "twinlib_kx", {"__init__.py": "", "a/__init__.py": TWIN_OPS.format(n=2),
                                           "b/__init__.py": TWIN_OPS.format(n=3)})
    cases = tmp_path / "cases"
    cases.mkdir()
    for part in "ab":
        (cases / f"cases_{part}.py").write_text(
            "from sphinx_kexport.probe import cases_from_docstrings\n"
            f"CASES = cases_from_docstrings('twinlib_kx.{part}')\n")
    from sphinx_kexport.probe.loader import load_inventory, resolve_sources

    specs, _ = load_inventory(resolve_sources([str(cases)], tmp_path))
    assert [(s.name, s.ref, tuple(s.inputs[0].shape)) for s in specs] == [
        ("scale[doc]", "twinlib_kx.a.scale", (2,)), ("scale[doc][twinlib_kx.b]", "twinlib_kx.b.scale", (3,))]
