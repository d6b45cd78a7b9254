"""The probe follows the library's code: a rerun measures exactly the cases that ran what changed, and
``diff`` is the gate that sees it (tests/probe/probe_cases/gateproject, a library whose three operators share one
helper, copied into a git repository and edited between real probe runs, as a maintainer's CI would)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from probe_cli import edit
from probe_cli import project_probe as probe
from probe_cli import project_survey as survey
from sphinx_kexport.snapshot.code_table import pack, unpack

pytestmark = [pytest.mark.probe, pytest.mark.slow]
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "gateproject"
SHARED = ("brighten", "darken", "contrast")
BRANCH = "    if x.abs().amax() > 1.0:\n        x = x / 2\n    return x /"


def git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *args], cwd=where, check=True,
                   capture_output=True)


def statuses(snapshot: dict, path: str) -> dict[str, str]:
    return {c["name"]: c["results"]["cpu"][path]["status"] for c in snapshot["cases"]}


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    """Commit, survey; a comment-only edit; a data-dependent branch in the shared helper; the revert."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    where = tmp_path_factory.mktemp("gate") / "project"
    shutil.copytree(PROJECT, where)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-qm", "the library as surveyed")
    runs = {"first": survey(where)}
    shutil.copy(where / "support.json", where / "base.json")
    helper = where / "gatelib" / "_common.py"
    edit(helper, '    """Scale ``x`` into [-1, 1]."""\n',
         '    """Scale ``x`` into [-1, 1], never dividing by zero."""\n    # one reduction over |x|\n')
    edit(helper, "return x / (x.abs().max() + EPS)", "return x / (\n        x.abs().max() + EPS\n    )")
    runs["comment"] = survey(where)
    git(where, "checkout", "-q", "--", "gatelib")
    edit(helper, "    return x /", BRANCH)
    runs["plan"] = probe(where, "--dry-run")
    runs["broken"] = survey(where)
    shutil.copy(where / "support.json", where / "broken.json")
    runs["regressions"] = probe(where, "diff", "base.json", "support.json")
    for fmt in ("md", "json"):  # the same report for a pull request's summary and for scripts
        runs[f"regressions_{fmt}"] = probe(where, "diff", "base.json", "support.json", "--format", fmt)
    git(where, "checkout", "-q", "--", "gatelib")
    runs["reverted"] = survey(where)
    runs["fixes"] = probe(where, "diff", "broken.json", "support.json")
    edit(where / "gatelib" / "_compiled.py", "return torch.neg(x)", "return x * -1")
    runs["compile_only"] = probe(where, "--dry-run")
    git(where, "checkout", "-q", "--", "gatelib")
    edit(helper, "    return 2.0", "    return 3.0")
    runs["build_only"] = probe(where, "--dry-run")
    git(where, "checkout", "-q", "--", "gatelib")
    # what a maintainer adds beside the code a case ran: an import, a constant, a case
    edit(helper, "import torch\n", "import math\n\nimport torch\n")
    edit(helper, "EPS = 1e-6\n", "EPS = 1e-6\nTAU = 2 * math.pi\n")
    with (where / "cases" / "cases_gatelib.py").open("a") as fh:
        fh.write('CASES.append(case("negate_twice", lambda x: gatelib.negate(gatelib.negate(x)), '
                 '[torch.rand(2, 3)], package="gatelib"))\n')
    runs["added"] = probe(where, "--dry-run")
    edit(helper, "EPS = 1e-6\n", "EPS = 1e-5\n")
    runs["constant"] = probe(where, "--dry-run")
    return runs


def test_each_record_names_the_code_its_case_ran(gate):
    _, snapshot = gate["first"]
    table = unpack(snapshot["code"])
    code = {c["name"]: table[c["measured"]["cpu"]["code"]] for c in snapshot["cases"]}
    # each (ref, digest) pair once: the three shared-helper cases name normalize's by one id
    assert len(snapshot["code"]["refs"]) == len({pair for refs in table.values() for pair in refs.items()})
    for name in SHARED:
        assert "gatelib/_common.py::normalize" in code[name] and f"gatelib/ops.py::{name}" in code[name]
        assert "gatelib/_common.py::global EPS torch" in code[name]  # the names normalize reads
    # of a file's top level, a record names only what its functions read: no whole-file ref
    assert all("::" in ref for refs in table.values() for ref in refs)
    assert "gatelib/_common.py::normalize" not in code["negate"]
    # the branch only compilers take, reached through dynamo's tracing and torch.export's run
    assert "gatelib/_compiled.py::negated_for_compilers" in code["negate"]
    assert "./cases/cases_gatelib.py::negated" in code["negate"]  # the case module's code is the case's too
    assert "gatelib/__init__.py" not in code["negate"]  # importing a module is no dependency on it
    # what building a case ran is the case's too: Gain's constructor and the helper it calls
    assert {"gatelib/modules.py::Gain.__init__", "gatelib/_common.py::default_gain",
            "gatelib/modules.py::Gain.forward"} <= set(code["gain"])
    assert not any("default_gain" in ref or "Gain" in ref for name in (*SHARED, "negate") for ref in code[name])
    assert all(len(digest) == 16 for refs in table.values() for digest in refs.values())
    assert pack(table) == snapshot["code"]  # the table is what packing the sets gives


def test_a_comment_docstring_or_formatting_edit_measures_nothing(gate):
    stdout, snapshot = gate["comment"]
    assert "measured 0, reused 5" in stdout
    # the same records and code (the header's revision says the checkout is dirty now)
    assert snapshot["cases"] == gate["first"][1]["cases"] and snapshot["code"] == gate["first"][1]["code"]


def test_dry_run_names_the_cases_that_ran_the_changed_helper_and_why(gate):
    plan = gate["plan"]
    assert plan.returncode == 0, plan.stdout + plan.stderr
    lines = plan.stdout.splitlines()
    planned = [line for line in lines if line.startswith("  ") and "[cpu]:" in line]
    assert sorted(line.split()[0] for line in planned) == sorted(SHARED)
    for line in planned:
        assert "code it ran changed: gatelib/_common.py::normalize" in line and "s the last time)" in line
    assert "would reuse 2 unchanged since support.json" in plan.stdout
    assert "nothing was measured or written (--dry-run)" in plan.stdout


def test_a_broken_helper_remeasures_exactly_its_callers_and_the_gate_fails(gate):
    stdout, snapshot = gate["broken"]
    assert "measured 3, reused 2" in stdout
    before = gate["first"][1]
    negate = next(c for c in snapshot["cases"] if c["name"] == "negate")
    assert negate["measured"] == next(c for c in before["cases"] if c["name"] == "negate")["measured"]
    for name in SHARED:
        assert statuses(before, "export")[name] == "ok" and statuses(snapshot, "export")[name] == "fail"
    diff = gate["regressions"]
    assert diff.returncode == 1, diff.stdout + diff.stderr
    regressed = diff.stdout.split("regressed (")[1].split("\nchanged (")[0]  # the regressed lines
    for name in SHARED:
        assert f"{name} [cpu] torch.export: ok -> fail" in regressed
    assert "negate" not in diff.stdout


def test_the_gate_names_the_helper_that_changed_and_the_line_that_fails(gate):
    # issue 61, "name the cause": each regression says which code its case ran changed, and where it fails
    text, md = gate["regressions"].stdout, gate["regressions_md"]
    data = json.loads(gate["regressions_json"].stdout)
    assert md.returncode == 1 and data["exit_status"] == 1
    # ONNX, torch.export and torch.compile of the three cases that run the helper
    assert sorted((c["case"], c["path"], c["kind"]) for c in data["changes"]) == sorted(
        (name, path, "regressed") for name in SHARED for path in ("onnx", "export", "compile"))
    for change in data["changes"]:
        assert change["code"] == {"changed": ["gatelib/_common.py::normalize"], "added": [], "removed": []}, change
        assert change["where"] == "gatelib/_common.py:10"  # the branch added to the helper
        assert ("changed: gatelib/_common.py::normalize; at gatelib/_common.py:10\n" in text)
    export_rows = [line for line in md.stdout.splitlines() if "| torch.export |" in line]
    assert sorted(row.split(" | ")[0][2:] for row in export_rows) == sorted(SHARED)
    for row in export_rows:
        assert row.endswith("| changed: gatelib/\\_common.py::normalize |") and "at gatelib/\\_common.py:10" in row
    for name in SHARED:
        assert f"  {name} [cpu] torch.export: ok -> fail (" in text


def test_the_revert_is_measured_again_and_the_gate_says_fixed(gate):
    stdout, snapshot = gate["reverted"]
    assert "measured 3, reused 2" in stdout
    assert statuses(snapshot, "export") == statuses(gate["first"][1], "export")
    fixes = gate["fixes"]
    assert fixes.returncode == 0 and "0 regressed" in fixes.stdout
    for name in SHARED:
        assert f"{name} [cpu] torch.export: fail -> ok" in fixes.stdout.split("fixed")[1]


def test_code_that_only_compilers_run_is_followed_too(gate):
    plan = gate["compile_only"].stdout
    planned = [line.split()[0] for line in plan.splitlines() if line.startswith("  ") and "[cpu]:" in line]
    assert planned == ["negate"]
    assert "gatelib/_compiled.py::negated_for_compilers" in plan


def test_code_that_only_building_a_case_ran_is_followed_too(gate):
    plan = gate["build_only"]
    assert plan.returncode == 0, plan.stdout + plan.stderr
    planned = [line for line in plan.stdout.splitlines() if line.startswith("  ") and "[cpu]:" in line]
    assert [line.split()[0] for line in planned] == ["gain"]
    assert "code it ran changed: gatelib/_common.py::default_gain" in planned[0]
    assert "would reuse 4 unchanged since support.json" in plan.stdout


def planned(run: subprocess.CompletedProcess) -> list[str]:
    assert run.returncode == 0, run.stdout + run.stderr
    return [line for line in run.stdout.splitlines() if line.startswith("  ") and "[cpu]:" in line]


def test_an_import_a_constant_or_a_case_added_measures_only_the_new_case(gate):
    lines = planned(gate["added"])
    assert [line.split()[0] for line in lines] == ["negate_twice"] and "new case" in lines[0]
    assert "would reuse 5 unchanged since support.json" in gate["added"].stdout


def test_an_edit_to_a_constant_measures_exactly_its_readers(gate):
    lines = [line for line in planned(gate["constant"]) if "negate_twice" not in line]
    assert sorted(line.split()[0] for line in lines) == sorted(SHARED)
    for line in lines:
        assert "code it ran changed: gatelib/_common.py::global EPS torch" in line
