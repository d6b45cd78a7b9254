"""One ``python -m sphinx_kexport.probe discover PACKAGE --tests TESTS --no-cases`` run with an empty discovery
cache of its own, timed from outside over its whole process tree (``process_tree.py``): what the discovery
benchmarks compare side by side."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from process_tree import run_counted_split

REPO = Path(__file__).resolve().parents[1]


def discover_counted(package: str, tests: str, extra: list[str], scratch: Path, label: str = "",
                     first_on_path: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess, float, float, float]:
    """(the finished command, its wall seconds, its tree's user and system CPU seconds); a failed run stops the
    benchmark with its error. ``first_on_path``: folders put before this checkout on ``PYTHONPATH``."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    path = [*first_on_path, str(REPO), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(cache), PYTHONPATH=os.pathsep.join(path))
    command = [sys.executable, "-m", "sphinx_kexport.probe", "discover", package, "--tests", tests, "--no-cases",
               *extra]
    done, wall, user, system = run_counted_split(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[1:])}{label} failed:\n{done.stderr[-3000:]}")
    return done, wall, user, system
