"""The suite deals its longest modules first (tests/conftest.py's LONGEST_FIRST, pyproject.toml's addopts): a
module of few tests that takes minutes (test_gate_action.py's probe runs) starts on a worker at once instead of
after every module that has more tests, where it ran alone at the end while the other workers idled."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# each test notes its module's name when it starts; the module with most tests is one the order does not name
NOTE = '''
import os
from pathlib import Path


def note():
    Path(os.environ["ORDER"]).open("a").write(Path(__file__).stem + "\\n")

'''


def test_the_longest_module_starts_before_modules_with_more_tests(tmp_path):
    conftest = (REPO / "tests" / "conftest.py").read_text()
    order_node = next(node for node in ast.parse(conftest).body if isinstance(node, ast.Assign)
                      and getattr(node.targets[0], "id", "") == "LONGEST_FIRST")
    longest = ast.literal_eval(order_node.value)[0]
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(conftest)
    (tmp_path / "tests" / f"{longest}.py").write_text(NOTE + "\ndef test_long():\n    note()\n")
    many = "".join(f"\ndef test_{i}():\n    note()\n" for i in range(30))
    for name in ("test_many_a", "test_many_b"):
        (tmp_path / "tests" / f"{name}.py").write_text(NOTE + many)
    addopts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    (tmp_path / "pytest.ini").write_text(f"[pytest]\naddopts = {addopts}\n")
    order = tmp_path / "order"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "1", "tests"],
                          cwd=tmp_path, env={**os.environ, "ORDER": str(order)}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    started = order.read_text().split()
    assert len(started) == 61 and started[0] == longest, started[:3]
