"""The discovery cache of a test suite follows the code each test file ran (issue 44).

A tiny library whose two operators use two different helpers, and a suite of two test files (one under a
folder with its own conftest): each test appends its name to a counter file, so what really ran is seen. After
an edit to one helper only the test file whose tests ran it runs again, and the cases (names, fingerprints,
the tests' reports) are the ones a discovery with an empty cache gives; an edit that changes no syntax
(a comment, a docstring) runs nothing; a new test file runs alone; a conftest's edit runs the files under it; a
removed test file drops out. Each discovery runs in a fresh process, as the probe's do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]

FILES = {
    "pyproject.toml": "[tool.pytest.ini_options]\n",
    "twohelp_kx/__init__.py": "from .ops import scale, shift\n",
    "twohelp_kx/helpers.py": '''
        def doubled(x):
            return x * 2


        def plus_one(x):
            return x + 1
        ''',
    "twohelp_kx/ops.py": '''
        from .helpers import doubled, plus_one


        def scale(x):
            return doubled(x)


        def shift(x):
            return plus_one(x)
        ''',
    "tests/counter.py": '''
        import os


        def ran(name):
            with open(os.environ["KX_COUNTER"], "a") as counter:
                counter.write(name + "\\n")
        ''',
    "tests/test_scale.py": '''
        import torch

        import twohelp_kx
        from counter import ran


        def test_scale():
            ran("test_scale")
            assert twohelp_kx.scale(torch.ones(2, 3)).sum() == 12


        def test_scale_wide():
            ran("test_scale_wide")
            assert twohelp_kx.scale(torch.ones(2, 5)).shape == (2, 5)
        ''',
    "tests/shifting/conftest.py": '''
        import pytest
        import torch


        @pytest.fixture
        def image():
            return torch.ones(2, 3)
        ''',
    "tests/shifting/test_shift.py": '''
        import twohelp_kx
        from counter import ran


        def test_shift(image):
            ran("test_shift")
            assert twohelp_kx.shift(image).shape == image.shape


        def test_shift_then_scale(image):
            ran("test_shift_then_scale")  # the same configuration of scale as test_scale: one case of the two
            assert twohelp_kx.scale(image).shape == image.shape
        ''',
}

DUMP = '''
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
from sphinx_kexport.probe.cases.fingerprint import case_definition
from sphinx_kexport.probe.base.reuse.decide import fingerprint
from sphinx_kexport.probe.discover.suite.suite import discover_suite

if __name__ == "__main__":  # shards run in spawned children, which import this file
    from sphinx_kexport.probe.discover.suite import suite_shards

    suite_shards.MIN_TESTS_PER_SHARD = 1  # four tests: one shard each with two jobs, as a larger suite deals them
    found = discover_suite("twohelp_kx", sys.argv[2], jobs=int(sys.argv[3]))
    print(json.dumps({
        "cases": [[c.name, c.discovery.node, fingerprint(case_definition(c), "cpu", 18, "1.0", {"torch": "x"})]
                  for c in found.cases],
        "reports": [[r.ref, r.skip, r.detail, r.dropped, r.covered, [c.name for c in r.cases]]
                    for r in found.reports],
        "cache": found.cache, "tests_run": found.tests_run}))
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


class Project:
    def __init__(self, root: Path):
        self.root, self.counter = root, root / "ran.txt"
        _write(root, FILES)
        (root / "dump.py").write_text(DUMP)

    def edit(self, name: str, old: str, new: str) -> None:
        path = self.root / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new))

    def discover(self, cache: Path, jobs: int = 1) -> tuple[dict, list[str]]:
        """(what discovery found, the tests that ran, in order)."""
        self.counter.write_text("")
        env = dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_DISCOVERY_CACHE=str(cache), KX_COUNTER=str(self.counter))
        done = subprocess.run([sys.executable, str(self.root / "dump.py"), str(self.root), "tests", str(jobs)],
                              capture_output=True, text=True, env=env, cwd=self.root, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1]), self.counter.read_text().split()

    def same_as_fresh(self, found: dict, tmp_path: Path, label: str) -> None:
        fresh, ran = self.discover(tmp_path / f"empty-{label}")
        assert ran  # the empty cache ran the suite
        assert found["cases"] == fresh["cases"]
        assert found["reports"] == fresh["reports"]


ALL = ["test_shift", "test_shift_then_scale", "test_scale", "test_scale_wide"]


def test_an_edit_runs_again_only_the_test_files_that_ran_the_changed_code(tmp_path):
    project = Project(tmp_path / "project")
    cache = tmp_path / "cache"
    first, ran = project.discover(cache)
    assert sorted(ran) == sorted(ALL)
    assert first["tests_run"] == 4
    names = [name for name, _, _ in first["cases"]]
    assert set(names) == {"scale[test]", "scale[test 2]", "shift[test]"}  # test_scale's first call is covered

    found, ran = project.discover(cache)
    assert ran == [] and found["cache"].startswith("loaded from the discovery cache")
    assert found["cases"] == first["cases"] and found["reports"] == first["reports"]

    # comments and a docstring change no syntax: nothing runs
    project.edit("twohelp_kx/helpers.py", "    return x + 1", '    """One more."""\n    # the offset\n    return x + 1')
    project.edit("tests/test_scale.py", "import torch\n", "import torch  # the tensors\n")
    found, ran = project.discover(cache)
    assert ran == [] and found["cases"] == first["cases"]

    # the helper only shift's tests ran: that test file runs again, alone
    project.edit("twohelp_kx/helpers.py", "return x + 1", "return 1 + x")
    found, ran = project.discover(cache)
    assert sorted(ran) == ["test_shift", "test_shift_then_scale"]
    assert found["tests_run"] == 2
    assert "ran again 1 of 2 test file(s): tests/shifting/test_shift.py (twohelp_kx/helpers.py::plus_one changed)" \
        in found["cache"]
    project.same_as_fresh(found, tmp_path, "helper")

    # the conftest above one test file: that file runs again
    project.edit("tests/shifting/conftest.py", "torch.ones(2, 3)", "torch.ones(2, 4)")
    found, ran = project.discover(cache)
    assert sorted(ran) == ["test_shift", "test_shift_then_scale"]
    assert "tests/shifting/conftest.py changed" in found["cache"]
    project.same_as_fresh(found, tmp_path, "conftest")
    assert len(found["cases"]) == 4  # the conftest's new shape is a configuration of scale of its own

    # a new test file runs alone
    _write(project.root, {"tests/test_more.py": '''
        import torch

        import twohelp_kx
        from counter import ran


        def test_more():
            ran("test_more")
            assert twohelp_kx.shift(torch.ones(3)).shape == (3,)
        '''})
    found, ran = project.discover(cache)
    assert ran == ["test_more"]
    assert "tests/test_more.py (new)" in found["cache"]
    project.same_as_fresh(found, tmp_path, "new")

    # a removed test file drops out; nothing runs
    (project.root / "tests" / "test_more.py").unlink()
    found, ran = project.discover(cache)
    assert ran == []
    assert not any(ref.startswith("tests/test_more.py") for ref, *_ in found["reports"])
    project.same_as_fresh(found, tmp_path, "removed")


def test_in_shards_a_rerun_selects_across_the_suite_as_a_discovery_with_an_empty_cache(tmp_path):
    """The test file that ran first loses the configuration it kept: the other file's (cached) call of it
    becomes the case, under the first case's name, as an empty cache would have it."""
    project = Project(tmp_path / "project")
    cache = tmp_path / "cache"
    first, ran = project.discover(cache, jobs=2)
    assert sorted(ran) == sorted(ALL)
    node_of = {name: node for name, node, _ in first["cases"]}
    assert node_of["scale[test]"].startswith("tests/shifting/")  # collected first: it keeps scale(ones(2, 3))

    project.edit("tests/shifting/test_shift.py", "twohelp_kx.scale(image).shape == image.shape",
                 "twohelp_kx.scale(image[:1]).shape == (1, 3)")
    found, ran = project.discover(cache, jobs=2)
    assert sorted(ran) == ["test_shift", "test_shift_then_scale"]
    project.same_as_fresh(found, tmp_path, "shards")
    assert {name for name, node, _ in found["cases"] if node.startswith("tests/test_scale.py")} \
        == {"scale[test 2]", "scale[test 3]"}  # kept now, from the cache: test_scale did not run
