"""``probe worklist SNAPSHOT...``: the library lines ranked by what they block, on small hand-made snapshots."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

from sphinx_kexport.probe.cli.main import main

REPO = Path(__file__).resolve().parents[3]
BRANCH = "a Python branch (if / while) tests tensor values at run time"
LOWERING = "no ONNX lowering for torch.linalg.svd"


def _cell(status="ok", detail="", where="", stage="", **extra):
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


def _case(name, operator, onnx=None, export=None, compile=None):
    return {"name": name, "package": "lib", "section": "", "operator": operator, "variant": "", "ref": "",
            "note": "", "results": {"cpu": {"onnx": onnx or _cell(), "export": export or _cell(),
                                            "compile": compile or _cell()}}}


def write_snapshot(folder: Path, torch: str, cases: list[dict]) -> Path:
    env = {"torch": f"{torch}+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    data = {"schema": 1, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
            "cases": cases}
    path = folder / f"lib-torch-{torch}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def newest(folder: Path) -> Path:
    """torch 2.13: c.py:1 blocks two operators in three cells, a.py:10 two operators in two, b.py:5 one operator
    in three; a compile graph break and a batch-only cell count as blocked; a cell without a line is counted."""
    fail = lambda where, detail=BRANCH: _cell("fail", detail, where, "capture")  # noqa: E731
    return write_snapshot(folder, "2.13.0", [
        _case("A", "A", export=fail("lib/a.py:10"), onnx=fail("lib/c.py:1")),
        _case("B", "B", export=fail("lib/a.py:10"), onnx=fail("lib/c.py:1")),
        _case("B[2]", "B", onnx=fail("lib/c.py:1")),
        _case("C", "C", export=fail("lib/b.py:5")),
        _case("C[2]", "C", export=fail("lib/b.py:5")),
        _case("C[3]", "C", export=fail("lib/b.py:5"), onnx=_cell("fail", LOWERING, "", "translate")),
        _case("D", "D", compile=_cell("ok-breaks", f"2 graph breaks: {BRANCH}", "lib/d.py:7", graph_breaks=2),
              export=_cell(dynamic={"status": "static", "detail": "works only at a fixed batch: the library "
                                    "raises when the batch size is symbolic (AssertionError: x)",
                                    "where": "lib/e.py:3"})),
    ])


def older(folder: Path) -> Path:
    fail = lambda where: _cell("fail", BRANCH, where, "capture")  # noqa: E731
    return write_snapshot(folder, "2.11.0", [
        _case("A", "A", export=fail("lib/a.py:10")),
        _case("C", "C", export=fail("lib/old.py:1"), compile=fail("lib/old.py:1")),
    ])


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["worklist", *args])
    return code, out.getvalue(), err.getvalue()


def _table_rows(markdown: str, title: str) -> list[list[str]]:
    block = markdown.split(f"### Where to fix first: {title}", 1)[1].split("###", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_lines_ranked_by_operators_then_cells_per_path(tmp_path):
    code, out, err = run(str(newest(tmp_path)))
    assert code == 0 and err == ""
    rows = _table_rows(out, "torch 2.13.0")
    assert [(r[1], r[2], r[3], r[4]) for r in rows] == [
        ("<code>lib/c.py:1</code>", "ONNX", "2", "3"),
        ("<code>lib/a.py:10</code>", "torch.export", "2", "2"),
        ("<code>lib/b.py:5</code>", "torch.export", "1", "3"),
        ("<code>lib/e.py:3</code>", "torch.export", "1", "1"),  # ties: in the page's path order
        ("<code>lib/d.py:7</code>", "torch.compile", "1", "1"),
    ]
    by_line = {r[1]: r for r in rows}
    # the class and fix follow the words and the path: the same branch is torch.where under torch.compile,
    # a data-dependent guard under torch.export and ONNX
    assert by_line["<code>lib/d.py:7</code>"][5] == "a branch on tensor values"
    assert "torch.where" in by_line["<code>lib/d.py:7</code>"][6]
    assert by_line["<code>lib/c.py:1</code>"][5] == "a data-dependent guard"
    assert "torch.\\_check" in by_line["<code>lib/c.py:1</code>"][6]  # markdown: an underscore after a dot escaped
    assert by_line["<code>lib/c.py:1</code>"][7] == "A, B"
    assert "1 red cells name no library line" in out


def test_several_versions_newest_first_with_what_still_blocks(tmp_path):
    code, out, _ = run(str(older(tmp_path)), str(newest(tmp_path)))
    assert code == 0
    assert out.index("torch 2.13.0") < out.index("torch 2.11.0")
    assert "Still blocks in torch 2.13.0" in out.split("torch 2.11.0", 1)[1]
    rows = {(r[1], r[2]): r[-1] for r in _table_rows(out, "torch 2.11.0")}
    assert rows == {("<code>lib/a.py:10</code>", "torch.export"): "yes",
                    ("<code>lib/old.py:1</code>", "torch.export"): "no",
                    ("<code>lib/old.py:1</code>", "torch.compile"): "no"}


def test_csv_and_top(tmp_path):
    code, out, _ = run(str(newest(tmp_path)), str(older(tmp_path)), "--format", "csv", "--top", "1")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["torch"], r["rank"], r["where"], r["path"], r["operators"], r["cells"], r["class"],
             r["still_blocks_in_newest"]) for r in rows] == [
        ("2.13.0", "1", "lib/c.py:1", "onnx", "2", "3", "data-dependent-guard", ""),
        ("2.11.0", "1", "lib/a.py:10", "export", "1", "1", "data-dependent-guard", "yes")]
    assert rows[0]["operator_names"] == "A; B" and "torch._check" in rows[0]["fix"]


def test_snapshot_strings_are_escaped(tmp_path):
    """A library line or cause with markup is text in markdown (trackers render inline HTML) and CSV."""
    evil = '<img src=x onerror="alert(1)">|x'
    path = write_snapshot(tmp_path, "2.13.0", [
        _case("A", "<b>A</b>", export=_cell("fail", f"{BRANCH} {evil}", evil, "capture")),
        _case("B", "B", export=_cell("fail", "=HYPERLINK(\"http://evil\")", "=cmd|x", "capture"))])
    _, out, _ = run(str(path))
    assert "<img" not in out and "<b>" not in out
    assert "&lt;img src=x onerror=\"alert(1)\"&gt;\\|x" in out and "&lt;b&gt;A&lt;/b&gt;" in out
    _, out, _ = run(str(path), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["where"] for r in rows} == {evil, "'=cmd|x"}


def test_a_bad_file_is_named_with_what_is_wrong(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    code, out, err = run(str(newest(tmp_path)), str(broken))
    assert code == 2 and out == ""
    assert err.startswith(f"sphinx-kexport probe: error: {broken}: not valid JSON at line 1")
    assert "Traceback" not in err
    code, _, err = run(str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json: no such file" in err
    no_torch = json.loads(newest(tmp_path).read_text())
    no_torch["environments"]["cpu"]["torch"] = "nightly"
    (tmp_path / "no-torch.json").write_text(json.dumps(no_torch), encoding="utf-8")
    code, _, err = run(str(older(tmp_path)), str(tmp_path / "no-torch.json"))
    assert code == 2 and "no-torch.json: field environments.cpu.torch: expected a version such as 2.13.0+cpu, " \
                         "found 'nightly'" in err
    (tmp_path / "twin").mkdir()
    twin = write_snapshot(tmp_path / "twin", "2.11.0", [])
    code, _, err = run(str(older(tmp_path)), str(twin))
    assert code == 2 and "torch 2.11.0, the same as" in err and "one snapshot per torch version" in err
    code, _, err = run(str(older(tmp_path)), "--top", "0")
    assert code == 2 and "--top must be 1 or more" in err


def test_needs_no_torch(tmp_path):
    """The subcommand imports the contract and the cli's common parts only: no torch, as a real process."""
    script = ("import sys; from sphinx_kexport.probe.cli.main import main; "
              f"code = main(['worklist', {str(newest(tmp_path))!r}]); "
              "assert 'torch' not in sys.modules, 'torch imported'; sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "lib/c.py:1" in done.stdout
