"""What the dynamic-batch test modules share: a project surveying probe_cases/batch_cases.py, the probe
command, and the source line a result's ``where`` points at."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "probe" / "probe_cases"
PATHS = ("onnx", "export", "compile")


def probe(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=timeout)


def project(folder: Path, extra: str = "") -> Path:
    (folder / "pyproject.toml").write_text(
        "[tool.sphinx-kexport]\n"
        f"cases = [{json.dumps(str(CASES / 'batch_cases.py'))}]\n"
        'out = "support.json"\ndevices = ["cpu"]\nlibrary = "probe_cases"\n' + extra, encoding="utf-8")
    return folder


def source_line(where: str, module: str = "batch_cases.py") -> str:
    file, line = where.split(":")
    assert file == f"probe_cases/{module}"
    return (CASES / module).read_text().splitlines()[int(line) - 1]
