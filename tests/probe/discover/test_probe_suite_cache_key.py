"""The discovery cache of a test suite: one entry per suite, however its path is spelled (issue 43).

e3nn's o3 tests spelled as a relative path in `discover --tests` and as an absolute one in the case module gave
two cache files (227 MB and 122 MB) and ran the suite (9 min) once for each. A tiny library and its tests,
whose one test writes a line to a counter file each time it runs, show how often the suite really runs.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

LIBRARY = '''
    def double(x):
        return x * 2
    '''

SUITE = '''
    import torch

    import spellib_kx


    def test_double():
        with open({runs!r}, "a") as counter:
            counter.write("ran\\n")
        assert spellib_kx.double(torch.ones(2)).sum() == 4
    '''


def test_every_spelling_of_the_tests_path_shares_one_cache_entry_and_the_suite_runs_once(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "spellib_kx").mkdir(parents=True)
    (project / "spellib_kx" / "__init__.py").write_text(textwrap.dedent(LIBRARY))
    (project / "tests").mkdir()
    runs = tmp_path / "runs.txt"
    (project / "tests" / "test_double.py").write_text(textwrap.dedent(SUITE.format(runs=str(runs))))
    (tmp_path / "elsewhere").mkdir()
    os.symlink(project, tmp_path / "link")
    cache = tmp_path / "cache"
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", str(cache))
    monkeypatch.syspath_prepend(str(project))
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    spellings = [("tests", project), ("./tests/", project), (str(project / "tests"), tmp_path / "elsewhere"),
                 ("../project/tests", tmp_path / "elsewhere"), (str(tmp_path / "link" / "tests"), tmp_path),
                 (Path("project") / "sub" / ".." / "tests", tmp_path)]
    (project / "sub").mkdir()
    found = []
    for tests, cwd in spellings:
        monkeypatch.chdir(cwd)
        found.append(discover_suite("spellib_kx", tests))
    assert runs.read_text().split() == ["ran"]  # the first spelling ran the suite; the others loaded it
    assert [f.tests_run for f in found] == [1, 0, 0, 0, 0, 0]
    assert len({f.tests for f in found}) == 1 and found[0].tests == str((project / "tests").resolve())
    assert len(list(cache.glob("*.pickle"))) == 1
    assert all(f.cache.startswith("loaded from the discovery cache") for f in found[1:])
    assert " MB" in found[0].cache and " MB, made in " in found[1].cache  # its size, said
    assert [spec.name for spec in found[-1].cases] == [spec.name for spec in found[0].cases] == ["double[test]"]
    sys.modules.pop("spellib_kx", None)


# parameters drawn at import, into a set of tuples holding strings: which ones depends on the random state at
# import (the files collected before), their order on PYTHONHASHSEED (e3nn's tensor_product_test.py draws its
# parametrisations so: TensorProduct.right[test] got another fingerprint in every run)
DRAWN = '''
    import random

    import pytest
    import torch

    import drawlib_kx


    def draw(n):
        params = set()
        while len(params) < n:
            params.add((random.randint(0, 3), random.choice(["sum", "max", "mean", "min", "prod", "amax"])))
        return params


    @pytest.mark.parametrize("k, mode", draw(6))
    def test_mix(k, mode):
        assert drawlib_kx.mix(torch.ones(2, 3), mode, k).shape == (2,)
    '''

DRAWN_LIBRARY = '''
    def mix(x, mode, k):
        return getattr(x, mode)(dim=1) + k
    '''

REPORT = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from sphinx_kexport.probe.cases.fingerprint import case_definition
from sphinx_kexport.probe.discover.suite.suite import discover_suite, suite_case

found = discover_suite("drawlib_kx", sys.argv[2], per_operator=2)
alone = {spec.name: suite_case(spec.discovery, spec.name) for spec in found.cases}
print(json.dumps([[spec.name, spec.discovery.node, case_definition(spec),
                   alone[spec.name] is not None and case_definition(alone[spec.name]) == case_definition(spec)]
                  for spec in found.cases]))
'''


def test_cases_drawn_at_import_have_the_same_fingerprints_in_every_process_and_alone(tmp_path):
    import json
    import subprocess

    (tmp_path / "drawlib_kx").mkdir()
    (tmp_path / "drawlib_kx" / "__init__.py").write_text(textwrap.dedent(DRAWN_LIBRARY))
    (tmp_path / "tests").mkdir()
    # collected first, it draws at import too: a test run alone (a worker's rebuild) does not import it
    (tmp_path / "tests" / "test_a_first.py").write_text("import random\nLUCK = random.random()\n\n\n"
                                                       "def test_nothing():\n    assert LUCK < 1\n")
    (tmp_path / "tests" / "test_drawn.py").write_text(textwrap.dedent(DRAWN))
    (tmp_path / "report.py").write_text(REPORT)
    repo = Path(__file__).resolve().parents[3]
    seen = []
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(repo), KEXPORT_DISCOVERY_CACHE="off")
        done = subprocess.run([sys.executable, str(tmp_path / "report.py"), str(tmp_path), str(tmp_path / "tests")],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        seen.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert [[name for name, *_ in cases] for cases in seen][0] == ["mix[test]", "mix[test 2]"]
    assert seen[0] == seen[1] == seen[2]  # names, node ids and definitions: the fingerprints do not move
    assert all(same for _, _, _, same in seen[0])  # each case's test, run alone, gives it again
