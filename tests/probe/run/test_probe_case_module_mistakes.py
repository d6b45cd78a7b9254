"""A case module that ends the process, and a child that fails for a reason of the probe's or the environment's:
each is a message that says what happened and where, with the right exit status, never a silent exit or a
traceback."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]


def test_a_case_module_that_calls_sys_exit_is_named_not_obeyed(tmp_path):
    module = tmp_path / "exiting_cases.py"
    module.write_text("import sys\n\nimport torch\n\nsys.exit(7)  # left from a script\nCASES = []\n",
                      encoding="utf-8")
    done = probe_cli("--cases", str(module), "--out", str(tmp_path / "never.json"), "--no-dynamic", cwd=tmp_path,
                     env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2, done.stdout + done.stderr  # it exited the whole probe with 7, silently
    assert (f"{module}: importing it called sys.exit(7) (at {module}:5: sys.exit(7)  # left from a script). "
            "A case module must not exit the process") in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "never.json").exists()


def test_a_child_that_fails_for_the_probe_or_the_environment_is_a_tool_error_with_its_reason():
    # what the H200 showed: the inventory's child read the CUDA device's name in a fork torch refuses, and the
    # RuntimeError came out of the probe as a traceback
    from sphinx_kexport.probe.run.inventory import _result
    from sphinx_kexport.probe import ToolError

    failed: concurrent.futures.Future = concurrent.futures.Future()
    failed.set_exception(RuntimeError("Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                                      "multiprocessing, you must use the 'spawn' start method\nmore"))
    with pytest.raises(ToolError, match=r"^the child process building the cases of color.py failed: RuntimeError: "
                                        r"Cannot re-initialize CUDA in forked subprocess\. To use CUDA with "
                                        r"multiprocessing, you must use the 'spawn' start method\. This is the "
                                        r"probe's error or the environment's"):
        _result(failed, "building the cases of color.py")
