"""Each "measure again?" key, changed alone, gives its own reason in ``--dry-run`` (real probe runs).

tests/probe/probe_cases/reuseproject is surveyed once; then one key at a time changes (the case's definition,
the library's code, a record's probe stamp, the probe's own measuring code, the torch and the library's version
the snapshot was measured with) and a dry run says, case by case, why it would measure it again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import edit
from probe_cli import project_probe as probe
from sphinx_kexport.probe.base.reuse.own_code import measuring_code

pytestmark = [pytest.mark.probe, pytest.mark.slow]
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("coverage")

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "reuseproject"
CASES = ("doubled", "halved", "negated", "shifted")


def reasons(stdout: str) -> dict[str, str]:
    """Case -> the reason its dry-run line gives (without the time it took the last time)."""
    found = re.findall(r"^  (\w+) \[cpu\]: (.*?)(?: \(\d+\.\d s the last time\))?$", stdout, flags=re.M)
    return dict(found)


def dry_run(where: Path) -> dict[str, str]:
    done = probe(where, "--dry-run")
    assert done.returncode == 0 and "nothing was measured or written (--dry-run)" in done.stdout, \
        done.stdout + done.stderr
    return reasons(done.stdout)


def rewrite(snapshot: Path, change) -> bytes:
    """Change the snapshot as ``change(data)`` does; returns its bytes before, to put back."""
    before = snapshot.read_bytes()
    data = json.loads(before)
    change(data)
    snapshot.write_text(json.dumps(data))
    return before


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    where = tmp_path_factory.mktemp("keys") / "project"
    shutil.copytree(PROJECT, where)
    done = probe(where)
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = where / "support.json"
    runs = {"first": json.loads(snapshot.read_text()), "unchanged": dry_run(where)}

    # three keys of three cases at once: the definition, the code it ran, the record's probe stamp
    cases_file, ops = where / "cases" / "cases_reuselib.py", where / "reuselib" / "ops.py"
    edit(cases_file, 'for name in ("doubled", "halved", "negated", "shifted")]',
         'for name in ("doubled", "halved", "negated", "shifted")]\nCASES[0] = case("doubled", reuselib.doubled, '
         '[torch.rand(4, 3)], package="reuselib")')
    edit(ops, "return x / 2", "return x * 0.5")

    def unstamp(data):
        next(c for c in data["cases"] if c["name"] == "negated")["measured"]["cpu"].pop("probe")

    before = rewrite(snapshot, unstamp)
    runs["per_case"] = dry_run(where)
    snapshot.write_bytes(before)
    shutil.copytree(PROJECT / "cases", where / "cases", dirs_exist_ok=True)
    shutil.copytree(PROJECT / "reuselib", where / "reuselib", dirs_exist_ok=True)

    # the environment the snapshot was measured in: another torch, another version of the library
    before = rewrite(snapshot, lambda data: data["environments"]["cpu"].update(torch="2.12.0"))
    runs["torch"] = dry_run(where)
    snapshot.write_bytes(before)
    before = rewrite(snapshot, lambda data: data["library"].update(version="0.9"))
    runs["library"] = dry_run(where)
    snapshot.write_bytes(before)

    # the probe's own measuring code: a copy of the package with one of its measuring modules edited
    copy = where.parent / "probe_copy"
    shutil.copytree(REPO / "sphinx_kexport", copy / "sphinx_kexport", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "sphinx_kexport" / "probe" / "measure" / "__init__.py").open("a") as handle:
        handle.write("EDITED = True  # an edit to the probe's measuring code (a comment alone is no edit)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(copy), str(where)]))
    other = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "--dry-run"], cwd=where, env=env,
                           capture_output=True, text=True, timeout=600)
    assert other.returncode == 0, other.stdout + other.stderr
    runs["probe_code"] = reasons(other.stdout)
    return runs


def test_an_unchanged_project_measures_nothing(keyed):
    assert keyed["unchanged"] == {}
    stamps = [c["measured"]["cpu"] for c in keyed["first"]["cases"]]
    assert all(stamp["probe"] == measuring_code() for stamp in stamps)  # what measured each record


def test_each_case_key_gives_its_own_reason(keyed):
    assert keyed["per_case"] == {
        "doubled": "its definition changed (inputs, arguments, target or checks)",
        "halved": "code it ran changed: reuselib/ops.py::halved",
        "negated": "its record does not name the probe code that measured it (an older probe measured it)"}


def test_another_torch_or_library_version_measures_every_case_and_says_which(keyed):
    assert set(keyed["torch"]) == set(CASES)
    torch_now = keyed["first"]["environments"]["cpu"]["torch"]
    assert set(keyed["torch"].values()) == {f"new environment (torch 2.12.0 -> {torch_now})"}
    assert set(keyed["library"].values()) == {"the library's version changed (0.9 -> 1.0)"}


def test_an_edit_to_the_probes_measuring_code_measures_every_case_again(keyed):
    assert set(keyed["probe_code"]) == set(CASES)
    (said,) = set(keyed["probe_code"].values())
    before, now = re.fullmatch(r"measured by other probe code \(the probe's measuring modules changed: "
                               r"([0-9a-f]{16}) -> ([0-9a-f]{16})\)", said).groups()
    assert before == measuring_code() != now


def test_the_probe_code_digest_reads_code_not_comments_or_layout(tmp_path):
    """The probe-code key (measured[device].probe) and discovery's code key: a comment or a blank line edited in
    the probe's code measures nothing again; a changed statement or docstring does."""
    from sphinx_kexport.probe.base.reuse.own_code import digest_code

    module = tmp_path / "measure" / "step.py"
    module.parent.mkdir()

    def digest(source: str) -> str:
        module.write_text(source)
        return digest_code([module], tmp_path)

    original = digest('def step(x):\n    """Run it."""\n    return x + 1\n')
    assert digest('def step(x):  # why\n\n        """Run it."""\n        return x + 1  # and why\n') == original
    assert digest('def step(x):\n    """Run it."""\n    return x + 2\n') != original
    assert digest('def step(x):\n    """Run it, twice."""\n    return x + 1\n') != original
    assert digest('def step(x):\n    """Run it."""\nreturn x + 1\n') != original  # another block structure
    # a file that does not tokenize counts by its bytes
    assert digest('def step(x):\n    """Run it.\n') != digest('def step(x):\n    """Run it!\n')


def test_a_comment_edited_in_the_measuring_code_keeps_the_probe_stamp(tmp_path):
    """measuring_code() itself follows that rule: a copy of the package whose measuring module gained a comment
    stamps its records as this one does."""
    copy = tmp_path / "probe_copy"
    shutil.copytree(REPO / "sphinx_kexport", copy / "sphinx_kexport", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "sphinx_kexport" / "probe" / "measure" / "__init__.py").open("a") as handle:
        handle.write("\n# a comment alone, and a blank line above it\n")
    done = subprocess.run([sys.executable, "-c", "from sphinx_kexport.probe.base.reuse.own_code import "
                           "measuring_code; print(measuring_code())"], env=dict(os.environ, PYTHONPATH=str(copy)),
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # not the checkout's package
    assert str(copy) in subprocess.run([sys.executable, "-c", "import sphinx_kexport; print(sphinx_kexport.__file__)"],
                                       env=dict(os.environ, PYTHONPATH=str(copy)), cwd=tmp_path,
                                       capture_output=True, text=True, timeout=60).stdout
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == measuring_code()
