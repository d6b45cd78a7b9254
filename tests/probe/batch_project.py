"""What the dynamic-batch test modules share: a project surveying probe_cases/batch_cases.py, the probe
command (run in-process: probe_cli.py), and the source line a result's ``where`` points at."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from probe_cli import probe_cli

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "probe" / "probe_cases"
PATHS = ("onnx", "export", "compile")


def probe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The probe command, run by this process (probe_cli.py)."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))
    return probe_cli(*args, cwd=cwd, env=environ)


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
