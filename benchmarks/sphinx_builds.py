"""What the build benchmarks share: an API page for the synthetic snapshot, and one
clean Sphinx build in a fresh interpreter, timed in CPU seconds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from process_tree import children_cpu


def api_page(snapshot: dict) -> str:
    """One py:function per referenced operator, so that operator references resolve."""
    refs = sorted({case["ref"] for case in snapshot["cases"] if case["ref"]})
    lines = [":orphan:", "", "API", "===", ""]
    for ref in refs:
        lines += [f".. py:function:: {ref}(x)", "", "   An operator.", ""]
    return "\n".join(lines)


def _pin_to_one_cpu() -> None:
    # the scheduler moving a build between CPUs adds noise; Sphinx builds on one core anyway
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})


def build_once(project: Path, builder: str, out: Path, *, silent: bool = False) -> float:
    """CPU seconds of one clean build in a fresh interpreter, pinned to one CPU.

    Stops the benchmark when the build fails, or with ``silent`` when it warns."""
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "sphinx", "-q", "-E", "-b", builder, str(project), str(out)]
    began = children_cpu()
    pin = _pin_to_one_cpu if hasattr(os, "sched_setaffinity") else None
    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=pin)
    seconds = children_cpu() - began
    if done.returncode or (silent and done.stderr.strip()):
        raise SystemExit(f"build failed{' or warned' if silent else ''}: {' '.join(command)}\n"
                         f"{done.stderr[-2000:]}")
    return seconds
