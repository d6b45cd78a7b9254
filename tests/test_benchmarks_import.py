"""Every benchmark script imports: a module the probe moved breaks a benchmark silently otherwise (one did:
bench_survey_memory.py imported probe/run/memory.py after it became probe/base/memory.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"


def test_every_benchmark_script_imports():
    names = sorted(p.stem for p in BENCHMARKS.glob("*.py"))
    assert "bench_build_watch" in names and len(names) > 10
    # one child for all of them (importing is what is checked; their main() is not run)
    script = "import importlib, sys\nsys.argv = ['bench']\nfor name in sys.stdin.read().split():\n" \
             "    importlib.import_module(name)\n"
    done = subprocess.run([sys.executable, "-c", script], input=" ".join(names), cwd=BENCHMARKS, text=True,
                          capture_output=True, env={"PYTHONPATH": f"{REPO}:{BENCHMARKS}", "PATH": "/usr/bin:/bin"},
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
