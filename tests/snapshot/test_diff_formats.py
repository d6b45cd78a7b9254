"""``probe diff --format text|md|json`` (issue 61): the same report and the same exit status in each; the Markdown
is a table per kind with every snapshot string escaped, the JSON one object of records."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_diff_cause import CHECK, GRAY, cell, snapshot

REPO = Path(__file__).resolve().parents[2]
# a case name and a failure's detail that would break a Markdown table or inject HTML if written as they are
ODD = "a|b <script>alert(1)</script>"
DETAIL = "no lowering for `aten::x` | see\nthe next line"

BASE = snapshot({ODD: (cell(), {GRAY: "a1", CHECK: "b1"}),
                 "fixed_op": (cell("fail", "x", "lib/f.py:3", stage="capture"), {"lib/f.py::f": "1"}),
                 "slow_op": (cell("ok-breaks", "2 graph breaks", "lib/s.py:1", graph_breaks=2), None)})
HEAD = snapshot({ODD: (cell("fail", DETAIL, "lib/color.py:42", stage="capture"), {GRAY: "a2", CHECK: "b1"}),
                 "fixed_op": (cell(), {"lib/f.py::f": "2"}),
                 "slow_op": (cell("ok-breaks", "9 graph breaks", "lib/s.py:1", graph_breaks=9), None)})


def diff(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    for name, data in (("base.json", BASE), ("head.json", HEAD)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "diff", "base.json", "head.json", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


@pytest.mark.parametrize("allow, code", [((), 1), (("--allow", "breaks"), 1)])
@pytest.mark.parametrize("fmt", ["text", "md", "json"])
def test_every_format_exits_as_the_text_does(tmp_path, fmt, allow, code):
    done = diff(tmp_path, "--format", fmt, *allow)
    assert done.returncode == code and done.stderr == "", done.stdout + done.stderr


def test_text_is_the_default_and_names_the_cause(tmp_path):
    default, text = diff(tmp_path), diff(tmp_path, "--format", "text")
    assert default.stdout == text.stdout
    assert (f"  {ODD} [cpu] torch.compile: ok -> fail ({DETAIL}); changed: {GRAY}; at lib/color.py:42"
            in default.stdout)
    assert "  fixed_op [cpu] torch.compile: fail -> ok; changed: lib/f.py::f; at lib/f.py:3" in default.stdout


def cells(row: str) -> list[str]:
    """A Markdown table row's cells: split at the pipes that are not escaped."""
    assert row.startswith("| ") and row.endswith(" |"), row
    return [c.strip() for c in re.split(r"(?<!\\)\|", row[1:-1])]


def unescaped(cell_text: str) -> str:
    return html.unescape(re.sub(r"\\(.)", r"\1", cell_text.replace("<br>", "\n")))


def test_markdown_is_a_table_per_kind_with_every_snapshot_string_escaped(tmp_path):
    done = diff(tmp_path, "--format", "md")
    lines = done.stdout.splitlines()
    assert lines[0] == "## Export support diff: fails (2 regressed, 1 fixed, 0 changed)"
    tables: dict[str, list[list[str]]] = {}
    for i, line in enumerate(lines):
        if line.startswith("### "):
            assert lines[i + 1] == "" and lines[i + 3] == "|---|---|---|---|---|---|---|"
            assert cells(lines[i + 2]) == ["Case", "Device", "Path", "Before", "After", "Why", "Changed code"]
            end = (lines + [""]).index("", i + 4)  # a table ends at a blank line or the end
            rows = [cells(row) for row in lines[i + 4:end]]
            assert len(rows) == int(line.split("(")[1][:-1]) and all(len(row) == 7 for row in rows)
            tables[line.split()[1]] = rows
    assert sorted(tables) == ["Fixed", "Regressed"]
    odd = next(row for row in tables["Regressed"] if unescaped(row[0]) == ODD)
    assert odd[1:5] == ["cpu", "torch.compile", "ok", "fail"]
    assert unescaped(odd[5]) == f"{DETAIL}\nat lib/color.py:42" and unescaped(odd[6]) == f"changed: {GRAY}"
    assert "<script>" not in done.stdout and "&lt;script&gt;" in odd[0]
    slow = next(row for row in tables["Regressed"] if row[0] == "slow_op")
    assert slow[3:5] == ["ok-breaks (2 graph breaks)", "ok-breaks (9 graph breaks)"]
    assert unescaped(slow[5]).startswith("the default torch.compile breaks it more often: 9 graph breaks")
    assert [unescaped(c) for c in tables["Fixed"][0][:5]] == ["fixed_op", "cpu", "torch.compile", "fail", "ok"]


def test_json_is_one_object_of_records(tmp_path):
    done = diff(tmp_path, "--format", "json", "--allow", "breaks")
    data = json.loads(done.stdout)
    assert (data["format"], data["exit_status"], data["allowed"]) == (1, 1, ["breaks"])
    assert data["counts"] == {"regressed": 1, "fixed": 1, "changed": 1}
    assert (data["old"], data["new"], data["renamed"], data["not_compared"]) == ("base.json", "head.json", [], [])
    odd = next(c for c in data["changes"] if c["case"] == ODD)
    assert {k: odd[k] for k in ("device", "path", "old_status", "new_status", "kind", "new_detail", "where")} == {
        "device": "cpu", "path": "compile", "old_status": "ok", "new_status": "fail", "kind": "regressed",
        "new_detail": DETAIL, "where": "lib/color.py:42"}
    assert odd["code"] == {"changed": [GRAY], "added": [], "removed": []}
    assert odd["text"].startswith(f"{ODD} [cpu] torch.compile: ok -> fail")
    slow = next(c for c in data["changes"] if c["case"] == "slow_op")
    assert (slow["kind"], slow["rule"], slow["old_breaks"], slow["new_breaks"]) == ("changed", "", 2, 9)


def test_markdown_and_json_list_the_renamed_and_the_not_compared_cases(tmp_path):
    base, head = json.loads(json.dumps(BASE)), json.loads(json.dumps(HEAD))
    for data, name in ((base, "old|name"), (head, "new_name")):  # the same object under another public name
        data["cases"][0].update(name=name, ref="lib.gray", aliases=["lib.color.gray"])
    head.update(complete=False, missing=[])  # a shard part: it lists fixed_op but did not measure it
    head["cases"][1]["results"] = {}
    head["cases"][1].pop("measured")
    for name, data in (("base.json", base), ("part.json", head)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    run = [sys.executable, "-m", "sphinx_kexport.probe", "diff", "base.json", "part.json", "--format"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    md, as_json = (subprocess.run([*run, fmt], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
                   for fmt in ("md", "json"))
    assert md.returncode == as_json.returncode == 1, md.stdout + md.stderr
    assert "renamed (1): old\\|name -&gt; new_name" in md.stdout.splitlines()
    assert any(line.startswith("not compared: 1 case(s) that part.json lists but did not measure")
               for line in md.stdout.splitlines())
    data = json.loads(as_json.stdout)
    assert data["renamed"] == [{"old": "old|name", "new": "new_name"}]
    assert data["not_compared"] == [{"case": "fixed_op", "device": "cpu"}]
    assert [c["case"] for c in data["changes"] if c["kind"] == "regressed"] == ["new_name", "slow_op"]
