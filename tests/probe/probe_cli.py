"""``python -m sphinx_kexport.probe ARGS`` run by the test's own process, as a subprocess would run it.

The command's ``main(argv)`` with the given working directory and environment, its stdout and stderr
captured, and its exit status: a ``subprocess.CompletedProcess`` like ``subprocess.run`` gives. What it saves
is the warm start: a probe process starts a fork server that imports torch, onnxruntime, onnxscript and
inductor (5 to 8 s of CPU) before its first child; here every run of a test process forks from one server, as
repeated ``run_survey`` calls of one program do (each child adopts its run's environment). The inventory's
children and the workers are real processes either way. Tests whose point is the process boundary (a kill,
the exit of ``python -m``, what the probe's own process imports, what the children print to the terminal,
which a fork of this process's server does not write to the captured stderr) start a real subprocess instead.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path


def probe_cli(*args: str, cwd: Path, env: dict[str, str] | None = None, **_ignored) -> subprocess.CompletedProcess:
    """Run the probe command in this process (``env``: its whole environment, as ``subprocess.run``'s)."""
    from sphinx_kexport.probe.cli.main import main
    from sphinx_kexport.probe.run.parent_state import become

    saved_env, saved_cwd, saved_path = dict(os.environ), os.getcwd(), list(sys.path)
    out, err = io.StringIO(), io.StringIO()
    try:
        if env is not None:
            become(env)
        # what PYTHONPATH gives a fresh interpreter: the case modules' packages importable
        sys.path[:0] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        become(saved_env)
    return subprocess.CompletedProcess(["python", "-m", "sphinx_kexport.probe", *args], code, out.getvalue(),
                                       err.getvalue())


def fixture_survey(cases: Path, library: str, project: Path, tmp_path: Path) -> dict:
    """The snapshot of a survey (one job, no dynamic-batch pass) of the case module ``cases`` of a tiny fixture
    library under ``project`` (put on the path, as its own tests expect); the run must end with status 0."""
    import json

    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo), str(repo / "tests" / "probe"), str(project)]))
    out = tmp_path / "support.json"
    done = probe_cli("--cases", str(cases), "--library", library, "--out", str(out), "--jobs", "1", "--no-dynamic",
                     cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def project_probe(where: Path, *args: str) -> subprocess.CompletedProcess:
    """The probe command run in ``where``, a copy of a fixture project (its ``pyproject.toml`` gives the settings),
    with the copy and this checkout on the path."""
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(where), str(repo)]))
    return probe_cli(*args, cwd=where, env=env)


def project_survey(where: Path) -> tuple[str, dict]:
    """A survey of the fixture project copied to ``where``, which must end with status 0: its output and snapshot."""
    import json

    done = project_probe(where)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads((where / "support.json").read_text())


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old``, which must be in the file, with ``new`` (a maintainer's edit between two runs)."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
