"""A run that measures nothing leaves the snapshot byte for byte (issue 61): neither the host's description in
the environment header (``platform``, ``probed_at``) nor a skip entry's time rewrites a committed snapshot, and
a run that does measure something re-stamps only what it measured (real probe runs on tiny cases,
tests/probe/probe_cases/nochurn_cases.py)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli
from sphinx_kexport.snapshot.files import dumps, read_snapshot

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "nochurn_cases.py"
ANOTHER_HOST = "Linux-5.4.0-another-host-x86_64-with-glibc2.31"


def probe(where: Path, *flags: str, more: bool = False) -> bytes:
    """Run the real probe on the fixture; the bytes of the snapshot it leaves."""
    env = dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_NOCHURN_MORE="1" if more else "0")
    done = probe_cli("--cases", str(CASE_FILE), "--library", "probe_cases", "--out", str(where / "support.json"),
                     "--jobs", "1", "--no-dynamic", *flags, cwd=where, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return (where / "support.json").read_bytes()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def as_if_from_another_host(where: Path) -> bytes:
    """The snapshot as another machine of the same kind would have written it: another kernel string and probe
    time in its header (a test input, written the way the probe writes a snapshot)."""
    snapshot = json.loads((where / "support.json").read_text(encoding="utf-8"))
    snapshot["environments"]["cpu"].update(platform=ANOTHER_HOST, probed_at="2020-01-02T03:04:05Z")
    (where / "support.json").write_text(dumps(snapshot), encoding="utf-8")
    return (where / "support.json").read_bytes()


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    where = tmp_path_factory.mktemp("nochurn")
    return where, probe(where)


def test_the_written_text_reads_back_to_the_same_bytes(first):
    where, written = first
    assert dumps(read_snapshot(where / "support.json")[0]).encode("utf-8") == written


def test_a_rerun_that_measures_nothing_leaves_the_file_byte_for_byte(first):
    where, written = first
    assert digest(probe(where)) == digest(written)
    assert digest(probe(where, "--only", "shifted")) == digest(written)  # one case selected, the others kept


def test_another_hosts_kernel_string_does_not_rewrite_a_snapshot_when_nothing_is_measured(first):
    where, _ = first
    from_elsewhere = as_if_from_another_host(where)
    assert digest(probe(where)) == digest(from_elsewhere)


def test_a_run_that_measures_a_case_rewrites_the_header_and_keeps_the_skip_entry(first):
    where, _ = first
    before = json.loads(as_if_from_another_host(where))
    after = json.loads(probe(where, more=True))  # one new case: measured on this host
    assert [c["name"] for c in after["cases"]] == ["tripled", "shifted", "not_a_graph", "squared"]
    header = after["environments"]["cpu"]
    assert header["platform"] != ANOTHER_HOST and header["probed_at"] > "2020-01-02T03:04:05Z"
    assert after["generated_at"] != before["generated_at"]
    stamps = {c["name"]: c["measured"]["cpu"] for c in after["cases"]}
    old = {c["name"]: c["measured"]["cpu"] for c in before["cases"]}
    # the skip entry and the reused results keep their stamps: the diff of this file is the new case
    assert all(stamps[name] == old[name] for name in ("tripled", "shifted", "not_a_graph"))
