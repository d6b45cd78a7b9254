"""example_docs/tools/survey_numbers.py: the showcase's table read from a snapshot, run as a maintainer runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fixtures.speed_scenario import snapshot

from sphinx_kexport.snapshot import dump_snapshot

TOOL = Path(__file__).resolve().parents[2] / "example_docs" / "tools" / "survey_numbers.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=120)


def test_the_counts_and_speed_marks_of_a_speed_snapshot(tmp_path):
    path = tmp_path / "support.json"
    dump_snapshot(snapshot(), path)
    done = run(str(path), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["configurations"] == 7 and found["no tensor input"] == 7  # the scenario names no inputs
    assert found["ONNX"]["supported"] == 6 and found["ONNX"]["fail"] == 1  # broken fails ONNX
    assert found["torch.compile"]["supported"] == 7
    assert found["supported on all three paths"] == 6
    marks = found["speed marks of working cells (the larger size where timed)"]
    # fuse 3.1x (at batch 32), tiny 0.45x, mixed across 1.0, broken 5x, wide 1.8x, hostile 2.5x; plain untimed
    assert marks["torch.compile"] == {"faster": 4, "slower": 1, "unclear": 1, "no figure": 1}
    assert marks["ONNX"] == {"faster": 1, "slower": 1, "unclear": 1, "no figure": 3}
    plain = run(str(path))  # the same figures as a tree for people
    assert plain.returncode == 0 and "configurations: 7\n" in plain.stdout and "    faster: 4\n" in plain.stdout


def test_a_missing_snapshot_is_named_without_a_traceback(tmp_path):
    done = run(str(tmp_path / "nowhere.json"))
    assert done.returncode == 2
    assert done.stderr == (f"survey_numbers.py: {tmp_path / 'nowhere.json'}: no such file; give a snapshot the "
                           "probe wrote\n")
