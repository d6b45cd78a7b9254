"""The command line is one argparse parser: the refresh's options, and a subparser per command that each command's
module adds; ``--help`` lists the commands, a wrong one is named with the right ones, the bare refresh still runs."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import sphinx_kexport.probe.cli as cli
from sphinx_kexport.probe.cli.main import main

REPO = Path(__file__).resolve().parents[3]
COMMANDS = ("merge", "diff", "fix-report", "worklist", "repro", "discover")


def probe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_help_lists_every_command_with_its_summary(tmp_path):
    done = probe("--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listing = done.stdout.split("\ncommands:", 1)[1]
    for command in COMMANDS:
        line = next((line.split() for line in listing.splitlines() if line.split()[:1] == [command]), None)
        assert line and len(line) > 3, f"{command} is not listed with a summary:\n{listing}"
    assert "--out PATH" in done.stdout.split("\ncommands:", 1)[0]  # the refresh's own options, as before


def test_every_command_module_adds_its_subparser():
    """A module of cli/ that can add a command is one the parser has: none is left out of the dispatch."""
    from sphinx_kexport.probe.cli.main import COMMAND_MODULES, parsers

    adding = {name for _, name, _ in pkgutil.iter_modules(cli.__path__)
              if hasattr(importlib.import_module(f"{cli.__name__}.{name}"), "add_command")}
    assert adding == {module.__name__.rsplit(".", 1)[1] for module in COMMAND_MODULES}
    commands = parsers()
    assert set(commands) == {"", *COMMANDS}
    for command in COMMANDS:
        assert commands[command].prog == f"python -m sphinx_kexport.probe {command}"
        assert commands[command].get_default("run").__module__.endswith(command.replace("-", "_"))


def test_an_unknown_command_names_the_commands(tmp_path):
    done = probe("merg", "out.json", "part.json", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    error = done.stderr.splitlines()[-1]
    assert "invalid choice: 'merg'" in error and all(f"'{command}'" in error for command in COMMANDS), error


def test_refresh_options_before_a_command_are_a_clear_error(capsys):
    assert main(["--jobs", "2", "diff", "old.json", "new.json"]) == 2
    error = capsys.readouterr().err
    assert "--jobs 2" in error and "after its name" in error and "diff --help" in error


def test_the_bare_form_is_the_refresh(tmp_path, capsys):
    """No command: the options are the refresh's, and it runs (here it stops at the missing --config file)."""
    assert main(["--config", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "support.json")]) == 2
    error = capsys.readouterr().err
    assert "missing.toml" in error and "invalid choice" not in error
    assert not (tmp_path / "support.json").exists()
