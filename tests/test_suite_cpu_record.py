"""``KEXPORT_TEST_CPU`` (tests/conftest.py) records each test's CPU time, its child processes' included, and
benchmarks/suite_cpu.py ranks the modules by it: the means of cutting the suite's time where it is spent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BUSY = '''
import subprocess, sys

BURN = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.5: pass"
KEPT = []


def test_busy_child():  # about half a second of CPU, all of it in a child the test waits for
    subprocess.run([sys.executable, "-c", BURN], check=True)


def test_busy_grandchild_of_a_child_kept_alive():
    # what the probe's fork server does across tests: a child that outlives the test, whose own finished
    # child spent the CPU
    keeper = "import subprocess, sys, time\\nsubprocess.run([sys.executable, '-c', sys.argv[1]])\\n" \\
             "print('done', flush=True)\\ntime.sleep(120)"
    KEPT.append(subprocess.Popen([sys.executable, "-c", keeper, BURN], stdout=subprocess.PIPE, text=True))
    assert KEPT[0].stdout.readline() == "done\\n"


def test_idle():
    for child in KEPT:
        child.kill()
        child.wait()
'''


def test_each_test_records_its_childrens_cpu_and_the_summary_ranks_them(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_busy.py").write_text(BUSY, encoding="utf-8")
    (tmp_path / "tests" / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text(encoding="utf-8"))
    record = tmp_path / "cpu.jsonl"
    env = {**os.environ, "KEXPORT_TEST_CPU": str(record)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["test"]: row for row in map(json.loads, record.read_text(encoding="utf-8").splitlines())}
    assert set(rows) == {"tests/test_busy.py::test_busy_child", "tests/test_busy.py::test_idle",
                         "tests/test_busy.py::test_busy_grandchild_of_a_child_kept_alive"}
    assert rows["tests/test_busy.py::test_busy_child"]["cpu_children"] >= 0.45
    assert rows["tests/test_busy.py::test_busy_grandchild_of_a_child_kept_alive"]["cpu_children"] >= 0.45
    assert rows["tests/test_busy.py::test_idle"]["cpu_children"] < 0.2  # the killed keeper's start-up

    summary = subprocess.run([sys.executable, str(REPO / "benchmarks" / "suite_cpu.py"), str(record), "--top", "1"],
                             capture_output=True, text=True, timeout=60)
    assert summary.returncode == 0, summary.stderr
    tests = summary.stdout.split("test\n", 1)[1].splitlines()
    assert len(tests) == 1 and "::test_busy_" in tests[0]  # a busy one first

    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    none = subprocess.run([sys.executable, str(REPO / "benchmarks" / "suite_cpu.py"), str(empty)],
                          capture_output=True, text=True, timeout=60)
    assert none.returncode != 0 and "no tests recorded" in none.stderr and "Traceback" not in none.stderr
