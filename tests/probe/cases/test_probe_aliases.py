"""One object under two public names is one operator (tests/probe/probe_cases/aliaslib: ``smooth`` is
``aliaslib.smooth`` and ``aliaslib.filters.smooth``): discovery keeps one case set and records the other name,
the join names the object as the hand-written case does and drops the docstring case that repeats it, the real
probe writes the names into a snapshot the validator accepts, and ``diff`` matches a case renamed after another
of its object's names instead of reporting one case gone and one new."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
TESTS = REPO / "tests" / "probe"
LIB = "probe_cases.aliaslib"
SHORT, LONG = f"{LIB}.smooth", f"{LIB}.filters.smooth"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]))


@pytest.fixture(scope="module", autouse=True)
def importable():
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))


def test_discovery_keeps_one_case_set_and_records_the_other_name():
    from sphinx_kexport.probe.cases.describe import describe
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover(LIB, time_limit=5)
    # the example is found once (under the package's shorter name), not again under the defining module's
    assert sorted(c.name for c in found.cases) == ["smooth[doc 2]", "smooth[doc]"]
    for spec in found.cases:
        described = describe(spec)
        assert (described.ref, described.aliases, described.entry["aliases"]) == (SHORT, (LONG,), [LONG])


def test_the_join_names_the_object_as_the_hand_written_case_does():
    from sphinx_kexport.probe.cases.describe import describe_module
    from sphinx_kexport.probe.cases.inventory import Source, join_inventory

    source = Source("aliaslib_cases", str(TESTS / "probe_cases"), "aliaslib_cases.py")
    cases, repeats = join_inventory([(source.label, describe_module(source))])
    # smooth[doc] calls the hand-written case's object on the same shapes (2, 5): a repeat, under another name
    assert [(dropped.name, kept.name) for dropped, kept in repeats] == [("smooth[doc]", "smooth")]
    assert [(c.name, c.ref, c.entry["ref"], c.entry["aliases"]) for c in cases] == [
        ("smooth", LONG, LONG, [SHORT]), ("smooth[doc 2]", LONG, LONG, [SHORT])]


def test_merge_cases_drops_the_repeat_by_either_name_and_reads_the_names_once(monkeypatch):
    # merge_cases once asked, for every case, every other case's public names: each ask read the whole of
    # sys.modules, 81 s of e3nn's 94 s inventory (151 cases). The names are read once while no module comes
    from probe_cases.aliaslib.filters import smooth
    from sphinx_kexport.probe import case, merge_cases
    from sphinx_kexport.probe.cases import public_names
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover(LIB, time_limit=5)
    hand = [case("smooth", smooth, [torch.ones(2, 5)], package=LIB, ref=LONG)]
    scans = []  # each scan of sys.modules asks once whether the library's package is private
    original = public_names._private
    monkeypatch.setattr(public_names, "_private", lambda name: scans.append(name) or original(name))
    public_names._INDEX.clear()
    merged = merge_cases(hand, found.cases * 20)  # 41 cases; the repeats of smooth[doc] all go
    assert [c.name for c in merged] == ["smooth"] + ["smooth[doc 2]"] * 20
    assert scans.count(LIB) == 1


def test_the_names_are_read_again_when_a_module_of_the_library_is_imported(tmp_path, monkeypatch):
    from sphinx_kexport.probe.cases.public_names import aliases_of

    (tmp_path / "lateimport_kx").mkdir()
    (tmp_path / "lateimport_kx" / "__init__.py").write_text("def blur(x):\n    return x\n")
    (tmp_path / "lateimport_kx" / "more.py").write_text("from . import blur\n__all__ = ['blur']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("lateimport_kx")
    assert aliases_of("lateimport_kx.blur") == ()
    importlib.import_module("lateimport_kx.more")  # a new module exports it under a second name
    assert aliases_of("lateimport_kx.blur") == ("lateimport_kx.more.blur",)
    for name in ("lateimport_kx.more", "lateimport_kx"):
        sys.modules.pop(name)


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> Path:
    pytest.importorskip("onnxruntime")
    out = tmp_path_factory.mktemp("aliases") / "support.json"
    done = probe_cli("--cases", str(TESTS / "probe_cases" / "aliaslib_cases.py"), "--library", "probe_cases",
                     "--out", str(out), "--jobs", "1", "--no-dynamic", cwd=out.parent, env=ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_probe_writes_the_other_names_and_the_validator_accepts_them(probed):
    from sphinx_kexport.snapshot import read_snapshot

    data, _ = read_snapshot(probed)  # validated on the way in
    assert {c["name"]: (c["ref"], c["aliases"]) for c in data["cases"]} == {
        "smooth": (LONG, [SHORT]), "smooth[doc 2]": (LONG, [SHORT])}


@pytest.mark.parametrize("aliases, found", [
    (SHORT, "field aliases: expected array, found string"),  # a name, not a list of names
    ([SHORT, 3], "field aliases[1]: expected string, found integer 3"),
    ([SHORT, ""], "field aliases[1]: expected a non-empty string"),
    ([SHORT, SHORT], f"field aliases: expected the object's other names, each once and without the case's own "
                     f"ref, found {SHORT!r} twice"),
    ([LONG], f"found {LONG!r} (the ref itself)"),
])
def test_a_malformed_aliases_field_names_the_file_the_case_and_the_field(probed, tmp_path, aliases, found):
    from sphinx_kexport.snapshot import SnapshotError, read_snapshot

    data = json.loads(probed.read_text())
    data["cases"][1]["aliases"] = aliases
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(SnapshotError) as raised:
        read_snapshot(bad)
    message = str(raised.value)
    assert message.startswith(f"{bad}: case #1 ('smooth[doc 2]') field aliases") and found in message, message


def test_diff_matches_a_case_renamed_after_another_name_of_its_object(probed, tmp_path):
    from sphinx_kexport.snapshot.diff import compare, renamed

    new = json.loads(probed.read_text())
    old = copy.deepcopy(new)
    # an older run called the object by the package's name, its case named after it (as an example that spells
    # only an alias names its case), and its ONNX cell failed
    before = old["cases"][1]
    before.update(name="smoothed[doc 2]", operator="smoothed", ref=SHORT, aliases=[LONG])
    before["results"]["cpu"]["onnx"] = dict(before["results"]["cpu"]["onnx"], status="fail", detail="no lowering")
    assert renamed(old, new) == {"smoothed[doc 2]": "smooth[doc 2]"}
    changes = compare(old, new)
    assert [(c.case, c.path, c.old_status, c.kind) for c in changes] == [
        ("smooth[doc 2]", "onnx", "fail", "fixed")]  # not "absent -> ok" and "fail -> absent"
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old))
    new_path.write_text(json.dumps(new))
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "diff", str(old_path), str(new_path)],
                          env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "renamed (1): smoothed[doc 2] -> smooth[doc 2]"
    # a case whose names the other snapshot does not share stays gone and new
    before.update(ref=f"{LIB}.other", aliases=[])
    assert renamed(old, new) == {}
