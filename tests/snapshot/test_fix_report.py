"""The fix report (issue 61): over the snapshots before and after a compile fix, the cells fixed and regressed,
the graph breaks removed, whether eager output kept its digest, and the speed figures before and after.

Synthetic snapshots shaped as a real record (``rgb_to_grayscale`` in example_docs/_data/export_support.json);
the command itself runs in a subprocess, as a pull request's job would run it.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_kexport.snapshot import load_schema
from sphinx_kexport.snapshot.fix_report import AFTER, BEFORE, fix_report
from sphinx_kexport.snapshot.fix_report_words import markdown, text
from sphinx_kexport.snapshot.vocabulary import EAGER_CHANGED, EAGER_IDENTICAL, EAGER_NOT_COMPARABLE

REPO = Path(__file__).resolve().parents[2]
BRANCH = "a Python branch (if / while) tests tensor values at run time"
TORCH, MACHINE = "2.13.0+cpu", "x86_64 AMD EPYC"


def figure(size: str, ratio: float, low: float, high: float, batch: int | None = None) -> dict:
    shapes = "32×3×32×32" if size == "batch" else "1×3×32×32"
    verdict = "faster" if low > 1 else "slower" if high < 1 else "unclear"
    made = {"size": size, "shapes": shapes, "ratio": ratio, "low": low, "high": high, "verdict": verdict,
            "eager_s": 5e-05, "path_s": 5e-05 / ratio}
    return made if batch is None else dict(made, batch=batch)


def path(status: str = "ok", breaks: int | None = None, figures: list | None = None, detail: str = "") -> dict:
    made = {"status": status, "detail": detail, "stage": "", "where": ""}
    if breaks is not None:
        made["graph_breaks"] = breaks
    if figures is not None:
        made["speed"] = {"figures": figures, "threads": 1, "untraced": True}
    return made


def case(name: str, compiled: dict, onnx: dict | None = None, digest: str | None = None, torch: str = TORCH,
         machine: str = MACHINE) -> dict:
    """A case as the probe records it; ``digest``: its eager output's, as measured[device].eager holds it."""
    measured = {"fingerprint": "29" * 32, "measured_at": "2026-12-06T13:53:51Z", "seconds": 11.9}
    if digest is not None:
        measured["eager"] = {"digest": digest, "torch": torch, "machine": machine}
    return {"name": name, "package": "kornia.color", "section": "", "operator": name, "variant": "",
            "ref": f"kornia.color.{name}", "origin": "hand-written", "note": "", "measured": {"cpu": measured},
            "results": {"cpu": {"onnx": onnx or path(), "export": path(), "compile": compiled}}}


def snapshot(*cases: dict) -> dict:
    env = {"torch": TORCH, "onnx": "1.23.2", "onnxruntime": "1.32.0", "onnxscript": "0.7.2", "python": "3.11.7",
           "platform": "Linux", "device_name": "AMD EPYC", "opset": 18, "probed_at": "2026-12-07T04:32:17Z"}
    return {"schema": 2, "generated_at": "2026-12-07T04:32:33Z", "complete": True,
            "library": {"name": "kornia", "version": "0.9.0", "revision": "0.9.0"}, "environments": {"cpu": env},
            "cases": list(cases)}


# a print in rgb_to_grayscale (fullgraph=True fails at it), a branch in `pool` (1 break, ONNX fails), .item() in
# `scale` (fullgraph=True compiles it, the default compile breaks once); the fix removes all three
BEFORE_FIX = snapshot(
    case("rgb_to_grayscale", path("ok-breaks", 1, detail="1 graph break: print() runs in Python")),
    case("pool", path("ok-breaks", 1, detail=f"1 graph break: {BRANCH}"), onnx=path("fail", detail="no lowering")),
    case("scale", path("ok", 1)),
    case("untouched", path("ok", 0)))
AFTER_FIX = snapshot(case("rgb_to_grayscale", path("ok", 0)), case("pool", path("ok", 0)),
                     case("scale", path("ok", 0)), case("untouched", path("ok", 0)))


def with_digests(data: dict, **digests) -> dict:
    """``data`` with the eager digest (digest, torch, machine) given per case name."""
    data = copy.deepcopy(data)
    for entry in data["cases"]:
        if entry["name"] in digests:
            digest, torch, machine = digests[entry["name"]]
            entry["measured"]["cpu"]["eager"] = {"digest": digest, "torch": torch, "machine": machine}
    return data


def test_the_cells_fixed_and_the_graph_breaks_removed():
    report = fix_report(BEFORE_FIX, AFTER_FIX)
    assert [(c.case, c.path, c.old_status, c.new_status) for c in report.fixed] == [
        ("rgb_to_grayscale", "compile", "ok-breaks", "ok"), ("pool", "onnx", "fail", "ok"),
        ("pool", "compile", "ok-breaks", "ok")]
    assert report.regressed == ()
    assert [(b.case, b.before, b.after) for b in report.breaks] == [
        ("rgb_to_grayscale", 1, 0), ("pool", 1, 0), ("scale", 1, 0)]
    assert (report.breaks_before, report.breaks_after, report.breaks_removed) == (3, 0, 3)
    assert report.passed


def test_breaks_removed_alone_pass_and_nothing_done_fails():
    removed = fix_report(snapshot(case("scale", path("ok", 1))), snapshot(case("scale", path("ok", 0))))
    assert (removed.fixed, removed.breaks_removed, removed.passed) == ((), 1, True)
    same = fix_report(AFTER_FIX, AFTER_FIX)
    assert (same.fixed, same.breaks, same.passed) == ((), (), False)
    assert text(same, "a", "b").splitlines()[-1] == "failed: nothing fixed and no graph break removed"


def test_a_fix_that_breaks_another_cell_says_so_and_fails():
    # the fix removes `pool`'s break, but fullgraph=True no longer compiles `scale`, and `untouched` breaks more
    after = snapshot(case("pool", path("ok", 0)),
                     case("scale", path("ok-breaks", 1, detail="1 graph break: print() runs in Python")),
                     case("untouched", path("ok", 0), onnx=path("fail", detail="no lowering")))
    report = fix_report(BEFORE_FIX, after)
    assert [(c.case, c.path) for c in report.fixed] == [("pool", "onnx"), ("pool", "compile")]
    assert [(c.case, c.path, c.old_status, c.new_status) for c in report.regressed] == [
        ("scale", "compile", "ok", "ok-breaks"), ("untouched", "onnx", "ok", "fail")]
    assert not report.passed
    words = text(report, "before.json", "after.json")
    assert ("  scale [cpu] torch.compile: ok -> ok-breaks (torch.compile(fn, fullgraph=True) no longer compiles it: "
            "1 graph break: print() runs in Python)") in words
    assert words.splitlines()[-1] == "failed: 2 cells regressed"


def test_more_default_compile_breaks_regress():
    report = fix_report(snapshot(case("layer", path("ok-breaks", 2)), case("pool", path("ok-breaks", 1))),
                        snapshot(case("layer", path("ok-breaks", 9)), case("pool", path("ok", 0))))
    assert [(c.case, c.rule) for c in report.regressed] == [("layer", "breaks")]
    assert (report.breaks_before, report.breaks_after, report.breaks_removed) == (3, 9, 1)
    assert not report.passed


def test_eager_output_identical_changed_and_not_comparable():
    before = with_digests(BEFORE_FIX, rgb_to_grayscale=("a" * 64, TORCH, MACHINE), pool=("b" * 64, TORCH, MACHINE),
                          scale=("c" * 64, "2.12.0+cpu", MACHINE))
    after = with_digests(AFTER_FIX, rgb_to_grayscale=("a" * 64, TORCH, MACHINE), pool=("f" * 64, TORCH, MACHINE),
                         scale=("c" * 64, TORCH, "aarch64 Graviton"), untouched=("d" * 64, TORCH, MACHINE))
    checks = {e.case: e for e in fix_report(before, after).eager}
    assert {name: e.verdict for name, e in checks.items()} == {
        "rgb_to_grayscale": EAGER_IDENTICAL, "pool": EAGER_CHANGED, "scale": EAGER_NOT_COMPARABLE,
        "untouched": EAGER_NOT_COMPARABLE}
    assert (checks["scale"].differs, checks["scale"].missing) == (("torch", "machine"), ())
    assert (checks["untouched"].differs, checks["untouched"].missing) == ((), (BEFORE,))
    words = text(fix_report(before, after), "before.json", "after.json")
    assert "  pool [cpu]: changed" in words
    assert ("  scale [cpu]: not comparable: another torch and machine (torch 2.12.0+cpu -> 2.13.0+cpu; machine "
            "x86_64 AMD EPYC -> aarch64 Graviton)") in words
    assert "  untouched [cpu]: not comparable: no digest before (" in words
    assert words.splitlines()[-1] == "failed: eager output changed in 1 case"


def test_a_case_with_no_eager_output_says_so_rather_than_blaming_the_probe():
    skipped = {"status": "n/a", "detail": "too slow", "stage": "skip", "where": ""}
    failed = {"status": "n/a", "detail": "ValueError", "stage": "eager", "where": "lib/x.py:3"}
    before = snapshot(case("skipped", dict(skipped), onnx=dict(skipped)), case("raises", dict(failed),
                                                                              onnx=dict(failed)))
    for entry in before["cases"]:
        entry["results"]["cpu"]["export"] = dict(entry["results"]["cpu"]["compile"])
    checks = {e.case: e for e in fix_report(before, copy.deepcopy(before)).eager}
    assert all(check.no_output for check in checks.values())
    words = text(fix_report(before, copy.deepcopy(before)), "before.json", "after.json")
    assert "  raises [cpu]: not comparable: no eager output to digest (skipped, failed eagerly" in words
    # a case that ran, but whose record has no digest, still says the record is the reason
    untouched = with_digests(BEFORE_FIX)
    assert not {e.case: e for e in fix_report(untouched, AFTER_FIX).eager}["untouched"].no_output


def test_a_fix_that_keeps_every_comparable_digest_passes():
    both = {name: (name * 8, TORCH, MACHINE) for name in ("pool", "scale", "untouched")}
    report = fix_report(with_digests(BEFORE_FIX, **both), with_digests(AFTER_FIX, **both))
    assert [e.verdict for e in report.eager] == [EAGER_NOT_COMPARABLE] + [EAGER_IDENTICAL] * 3
    assert report.eager[0].missing == (BEFORE, AFTER)  # rgb_to_grayscale: neither side recorded one
    assert report.passed


def test_speed_before_and_after_matched_by_what_they_timed():
    before = snapshot(case("pool", path("ok-breaks", 1, [figure("inputs", 1.1, 0.9, 1.3),
                                                          figure("batch", 1.2, 1.1, 1.3, batch=32)])))
    after = snapshot(case("pool", path("ok", 0, [figure("batch", 3.1, 2.8, 3.4, batch=32),
                                                  figure("inputs", 1.2, 1.0, 1.4)])))
    report = fix_report(before, after)
    compiled = next(cell for cell in report.speed if cell.path == "compile")
    pairs = {p.size: p for p in compiled.pairs}
    assert (pairs["inputs"].before["ratio"], pairs["inputs"].after["ratio"], pairs["inputs"].overlap) == (1.1, 1.2, True)
    assert (pairs["batch"].before["ratio"], pairs["batch"].after["ratio"], pairs["batch"].overlap) == (1.2, 3.1, False)
    words = text(report, "b", "a")
    assert "  pool [cpu] torch.compile: ok-breaks -> ok\n" in words  # the figures are said once, below
    assert ("  pool [cpu] torch.compile at batch 32 (32×3×32×32): 1.20× (1.10–1.30) -> 3.10× (2.80–3.40), "
            "spreads apart") in words
    assert ("  pool [cpu] torch.compile at the case's inputs (1×3×32×32): 1.10× (0.90–1.30) -> 1.20× (1.00–1.40), "
            "spreads overlap (no clear change)") in words


def test_speed_not_timed_on_a_side_says_how_to_time_it():
    report = fix_report(snapshot(case("pool", path("ok-breaks", 1))),
                        snapshot(case("pool", path("ok", 0, [figure("inputs", 1.2, 1.0, 1.4)]))))
    compiled = next(cell for cell in report.speed if cell.path == "compile")
    assert (compiled.untimed, compiled.pairs[0].before, compiled.pairs[0].overlap) == ((BEFORE,), None, None)
    untimed = next(cell for cell in report.speed if cell.path == "onnx")  # neither run timed ONNX
    assert (untimed.untimed, untimed.pairs) == ((BEFORE, AFTER), ())
    words = text(report, "b", "a")
    assert ("  pool [cpu] torch.compile at the case's inputs (1×3×32×32): not timed before (run the probe with "
            "--speed) -> 1.20× (1.00–1.40)") in words
    assert ("  pool [cpu] ONNX: not timed before (run the probe with --speed) -> not timed after (run the probe "
            "with --speed)") in words


def test_speed_covers_the_cases_the_fix_touched_unless_named():
    report = fix_report(BEFORE_FIX, AFTER_FIX)
    assert {cell.case for cell in report.speed} == {"rgb_to_grayscale", "pool", "scale"}  # not `untouched`
    named = fix_report(BEFORE_FIX, AFTER_FIX, cases=["untouched", "pool"])
    assert {cell.case for cell in named.speed} == {"untouched", "pool"}
    assert [(c.case, c.path) for c in named.fixed] == [("pool", "onnx"), ("pool", "compile")]
    assert [e.case for e in named.eager] == ["pool", "untouched"]
    assert fix_report(BEFORE_FIX, AFTER_FIX, devices=["cuda"]).fixed == ()


def test_markdown_escapes_snapshot_strings():
    before = snapshot(case("a|b<i>", path("ok-breaks", 1)))
    after = snapshot(case("a|b<i>", path("fail", detail="line one\nline | two <script>")))
    words = markdown(fix_report(before, after), "before.json", "after.json")
    row = next(line for line in words.splitlines() if line.startswith("| a"))
    assert row == ("| a\\|b&lt;i&gt; | CPU | torch.compile | ok-breaks | fail | regressed | line one line \\| two "
                   "&lt;script&gt; |")
    assert "<script>" not in words and "<i>" not in words


# -- the command, as a job runs it


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "fix-report", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))


def files(tmp_path: Path, before: dict, after: dict) -> tuple[str, str]:
    for name, data in (("before.json", before), ("after.json", after)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return "before.json", "after.json"


def tables(md: str) -> list[list[list[str]]]:
    """The Markdown tables of ``md``: rows of cells (split on unescaped pipes), the separator row checked."""
    found, current = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.replace("\\|", "\0").strip("|").split("|")]
            current.append([c.replace("\0", "|") for c in cells])
        elif current:
            assert all(c == "---" for c in current[1]), current[1]
            assert len({len(row) for row in current}) == 1, current  # every row as wide as the header
            found.append([current[0]] + current[2:])
            current = []
    return found


def test_the_command_in_each_format(tmp_path):
    names = files(tmp_path, BEFORE_FIX, AFTER_FIX)
    done = run(*names, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "  pool [cpu] ONNX: fail -> ok" in done.stdout
    assert "graph breaks of the default torch.compile: 3 -> 0 in all (cells supported before and after), 3 removed" \
        in done.stdout

    md = run(*names, "--format", "md", cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    cells, breaks, eager, speed = tables(md.stdout)
    assert cells[0] == ["Case", "Device", "Path", "Before", "After", "Result", "Why"]
    assert [row[:6] for row in cells[1:]] == [
        ["rgb_to_grayscale", "CPU", "torch.compile", "ok-breaks", "ok", "fixed"],
        ["pool", "CPU", "ONNX", "fail", "ok", "fixed"], ["pool", "CPU", "torch.compile", "ok-breaks", "ok", "fixed"]]
    assert breaks[-1] == ["**all**", "", "3", "0"]
    assert [row[2] for row in eager[1:]] == [f"{EAGER_NOT_COMPARABLE}: no digest before or after (measured by a "
                                             "probe that records none, or reused from such a record)"] * 4
    assert speed[0] == ["Case", "Device", "Path", "Inputs", "Before", "After", "Spreads"]
    assert "**passed: 3 cells fixed, 3 graph breaks removed" in md.stdout

    as_json = run(*names, "--format", "json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["passed"], len(data["fixed"]), data["regressed"], data["graph_breaks"]["removed"]) == (True, 3, [], 3)


def test_the_command_fails_a_fix_that_regressed_and_limits_to_cases_and_devices(tmp_path):
    after = snapshot(case("rgb_to_grayscale", path("ok", 0)), case("pool", path("ok", 0)),
                     case("scale", path("fail", detail="no lowering")), case("untouched", path("ok", 0)))
    names = files(tmp_path, BEFORE_FIX, after)
    done = run(*names, cwd=tmp_path)
    assert done.returncode == 1 and "regressed (1):\n  scale [cpu] torch.compile: ok -> fail" in done.stdout
    assert done.stdout.splitlines()[-1] == "failed: 1 cell regressed"
    limited = run(*names, "--case", "pool", "--case", "rgb_to_grayscale", "--format", "json", cwd=tmp_path)
    assert limited.returncode == 0, limited.stdout
    assert {c["case"] for c in json.loads(limited.stdout)["fixed"]} == {"pool", "rgb_to_grayscale"}
    elsewhere = run(*names, "--device", "cuda", cwd=tmp_path)
    assert elsewhere.returncode == 1 and "fixed: none" in elsewhere.stdout


@pytest.mark.skipif("eager" not in load_schema()["$defs"]["measured"]["properties"],
                    reason="this checkout's snapshot schema records no eager digest yet (measured[device].eager)")
def test_the_command_fails_a_fix_that_changed_eager_output(tmp_path):
    before = with_digests(BEFORE_FIX, pool=("b" * 64, TORCH, MACHINE))
    names = files(tmp_path, before, with_digests(AFTER_FIX, pool=("f" * 64, TORCH, MACHINE)))
    done = run(*names, cwd=tmp_path)
    assert done.returncode == 1 and "  pool [cpu]: changed" in done.stdout
    files(tmp_path, before, with_digests(AFTER_FIX, pool=("b" * 64, TORCH, MACHINE)))
    assert run(*names, cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("problem, words", [
    ("missing", "missing.json: no such file"),
    ("not json", "before.json: not valid JSON at line 1"),
    ("unknown case", "--case nosuch: no such case in before.json or after.json"),
])
def test_unreadable_input_is_a_message_and_status_2(tmp_path, problem, words):
    names = files(tmp_path, BEFORE_FIX, AFTER_FIX)
    args = {"missing": ("missing.json", names[1]), "not json": names, "unknown case": (*names, "--case", "nosuch")}
    if problem == "not json":
        (tmp_path / "before.json").write_text("{not json", encoding="utf-8")
    done = run(*args[problem], cwd=tmp_path)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
