"""The test command (scripts/test.sh, the README's one command) runs the whole suite on .venv's Python, then the
probe's, the page's and the snapshot's tests on the second Python the package claims, and fails when either run
fails. Run here as it is, in a copy of the checkout whose set-up script does nothing and whose interpreters are
stand-ins that record what they were asked to run and exit as told."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# a stand-in for an interpreter: `-V` names it; a pytest run is recorded as one line of arguments and exits with
# the status its environment gives it
STAND_IN = """#!/usr/bin/env bash
if [ "$1" = -V ]; then echo "Python {version}"; exit 0; fi
echo "{version} $*" >> "$RECORD"
exit "${{EXIT_{name}:-0}}"
"""


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "test.sh").write_bytes((REPO / "scripts" / "test.sh").read_bytes())
    (root / "scripts" / "setup-env.sh").write_text("# set up nothing\n")
    for folder in ("tests/probe", "tests/page", "tests/snapshot"):
        (root / folder).mkdir(parents=True)
    (root / "tests" / "page" / "test_one.py").write_text("")
    (root / "tests" / "test_lint.py").write_text("")
    for venv, version, name in ((".venv", "3.11.7", "FIRST"), (".venv-3.13", "3.13.0", "SECOND")):
        python = root / venv / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text(STAND_IN.format(version=version, name=name))
        python.chmod(0o755)
    # python3.13 on PATH, as pyenv or the system would put it
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3.13").symlink_to(root / ".venv-3.13" / "bin" / "python")
    return root


# the system's tools, and no python3.13 but the stand-in
SYSTEM_PATH = os.pathsep.join(["/usr/bin", "/bin"])


def run(root: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    record = root.parent / "record"
    record.unlink(missing_ok=True)
    environment = {key: value for key, value in os.environ.items() if key != "KEXPORT_SECOND_PYTHON"}
    environment.update(PATH=f"{root.parent / 'bin'}{os.pathsep}{SYSTEM_PATH}", RECORD=str(record), **env)
    done = subprocess.run(["bash", str(root / "scripts" / "test.sh"), *args], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=60)
    return done, record.read_text().splitlines() if record.exists() else []


def test_the_whole_suite_then_the_second_pythons_part(checkout):
    done, runs = run(checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert runs[0].startswith("3.11.7 -m pytest") and "tests/" not in runs[0]  # the whole suite
    assert runs[1].startswith("3.13.0 -m pytest") and runs[1].endswith("tests/probe tests/page tests/snapshot")
    assert len(runs) == 2


@pytest.mark.parametrize("failing", ["FIRST", "SECOND"])
def test_the_command_fails_when_either_run_fails(checkout, failing):
    done, runs = run(checkout, **{f"EXIT_{failing}": "3"})
    assert done.returncode == 3 and len(runs) == 2, done.stdout + done.stderr  # both ran all the same
    assert "exit 3" in done.stdout.splitlines()[-1]  # the last line says which run failed


def test_off_runs_one_python_and_a_named_interpreter_is_used_as_it_is(checkout, tmp_path):
    done, runs = run(checkout, KEXPORT_SECOND_PYTHON="off")
    assert done.returncode == 0 and [r.split()[0] for r in runs] == ["3.11.7"], done.stdout + done.stderr
    other = tmp_path / "elsewhere" / "python"
    other.parent.mkdir()
    other.write_text(STAND_IN.format(version="3.13.1", name="SECOND"))
    other.chmod(0o755)
    done, runs = run(checkout, KEXPORT_SECOND_PYTHON=str(other))
    assert done.returncode == 0 and [r.split()[0] for r in runs] == ["3.11.7", "3.13.1"], done.stdout + done.stderr


def test_without_the_second_python_the_command_says_so(checkout, tmp_path):
    if any(Path(folder, "python3.13").exists() for folder in SYSTEM_PATH.split(os.pathsep)):
        pytest.skip("this system has a python3.13 of its own")
    (tmp_path / "bin" / "python3.13").unlink()
    done, runs = run(checkout)
    assert done.returncode == 0 and len(runs) == 1
    assert "python3.13 is not installed" in done.stdout


def test_a_python313_on_path_that_does_not_run_is_no_second_python(checkout, tmp_path):
    """pyenv puts a shim on PATH for every version it holds; one not selected fails when run (exit 127)."""
    if any(Path(folder, "python3.13").exists() for folder in SYSTEM_PATH.split(os.pathsep)):
        pytest.skip("this system has a python3.13 of its own")
    shim = tmp_path / "bin" / "python3.13"
    shim.unlink()
    shim.write_text("#!/usr/bin/env bash\necho \"pyenv: python3.13: command not found\" >&2\nexit 127\n")
    shim.chmod(0o755)
    done, runs = run(checkout)
    assert done.returncode == 0 and len(runs) == 1, done.stdout + done.stderr
    assert "python3.13 is not installed" in done.stdout


def test_arguments_reach_both_runs_and_the_second_keeps_only_its_paths(checkout):
    done, runs = run(checkout, "-m", "not browser", "tests/page/test_one.py", "tests/test_lint.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert runs[0].endswith("-m not browser tests/page/test_one.py tests/test_lint.py")
    assert runs[1].endswith("-m not browser tests/page/test_one.py")
    done, runs = run(checkout, "tests/test_lint.py")
    assert len(runs) == 1 and "none of the paths" in done.stdout.splitlines()[-1]
