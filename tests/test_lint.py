"""The linter (ruff) and the type checker (mypy) run as part of the suite, with the configuration in
pyproject.toml ([tool.ruff], [tool.mypy]), so ``bash scripts/test.sh`` fails on what either finds. Each
also gets a planted mistake in a temporary file, so a check that quietly stopped looking would fail here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "pyproject.toml"


def tool(name: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``python -m <name> ARGS`` in the suite's own Python, as the test extra installs it."""
    if importlib.util.find_spec(name) is None:
        pytest.fail(f"{name} is not installed in {sys.executable}: install the test extra "
                    f"(pip install -e '.[test]' -c scripts/constraints.txt, or bash scripts/test.sh)")
    return subprocess.run([sys.executable, "-m", name, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    done = tool("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing(tmp_path):
    done = tool("mypy", "--cache-dir", str(tmp_path / "cache"))  # the files: [tool.mypy] files
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_reports_a_planted_mistake(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\n\ndef f():\n    return undefined_name\n", encoding="utf-8")
    done = tool("ruff", "check", "--no-cache", "--config", str(CONFIG), "--output-format", "concise", str(planted))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "F401" in done.stdout and "F821" in done.stdout, done.stdout  # unused import, undefined name


def test_mypy_reports_a_planted_mistake_and_holds_the_snapshot_package_stricter(tmp_path):
    # a copy of the package layout, so that the planted module is sphinx_kexport.snapshot.planted to mypy
    package = tmp_path / "sphinx_kexport" / "snapshot"
    package.mkdir(parents=True)
    (tmp_path / "sphinx_kexport" / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "planted.py").write_text(textwrap.dedent("""\
        def typed(n: int) -> str:
            return n  # a type error anywhere

        def untyped(n):  # an error only where every function must be typed
            return n
        """), encoding="utf-8")
    done = tool("mypy", "--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"),
                "sphinx_kexport/snapshot/planted.py", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "planted.py:2: error: Incompatible return value type" in done.stdout, done.stdout
    assert "planted.py:4: error: Function is missing a type annotation" in done.stdout, done.stdout
