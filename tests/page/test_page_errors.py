"""Bad input stops the page with one clear error and a failing build.

Each case edits a private copy of tests/page/roots/test-bad (a copy of the basic
snapshot) and builds it: the warning stream holds exactly one line, an
ERROR located at the directive, that names the file, the case (index and
name), the field, what was expected and what was found; sphinx-build's
status is 1; the page shows the error instead of any part of the table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from page_support import build, copy_root, soup, subprocess_env, warnings

SNAPSHOT = "_data/export_support.json"


def _edit_snapshot(change):
    def edit(src: Path) -> None:
        path = src / SNAPSHOT
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    return edit


def _write_snapshot(text: str):
    def edit(src: Path) -> None:
        (src / SNAPSHOT).write_text(text)
    return edit


def _options(*lines: str):
    def edit(src: Path) -> None:
        index = src / "index.rst"
        index.write_text(index.read_text() + "".join(f"   {line}\n" for line in lines))
    return edit


def _remove_snapshot(src: Path) -> None:
    (src / SNAPSHOT).unlink()


CASES = {
    "missing file": (_remove_snapshot, ["_data/export_support.json: no such file"]),
    "invalid JSON": (_write_snapshot('{"schema": 1,\n  "cases": [}'),
                     ["_data/export_support.json: not valid JSON at line 2, column 13"]),
    "wrong type": (_edit_snapshot(lambda d: d["cases"][2].__setitem__("variant", 3)),
                   ["case #2 ('geometry.transform.warp_affine[fill]')", "field variant",
                    "expected string", "found integer 3"]),
    "wrong header type": (_edit_snapshot(lambda d: d.__setitem__("complete", "yes")),
                          ["field complete", "expected boolean", "found string 'yes'"]),
    "unknown status": (_edit_snapshot(lambda d: d["cases"][1]["results"]["cpu"]["onnx"].__setitem__("status", "maybe")),
                       ["case #1 ('color.hsv_to_rgb')", "field results.cpu.onnx.status",
                        "expected one of 'ok', 'ok-breaks'", "found 'maybe'"]),
    "duplicate name": (_edit_snapshot(lambda d: d["cases"][3].__setitem__("name", "color.rgb_to_gray")),
                       ["case #3 ('color.rgb_to_gray')", "field name", "(case #0 is also 'color.rgb_to_gray')",
                        "found duplicate name"]),
    "unknown device": (_edit_snapshot(lambda d: d["cases"][0]["results"].__setitem__("tpu", {})),
                       ["case #0 ('color.rgb_to_gray')", "field results.tpu",
                        "expected a key that is one of 'cpu', 'cuda'", "found key 'tpu'"]),
    "device not probed": (_edit_snapshot(lambda d: d["cases"][0]["results"].__setitem__(
                              "cuda", d["cases"][0]["results"]["cpu"])),
                          ["field results.cuda", "expected a device listed under environments (cpu)",
                           "found results for unknown device 'cuda'"]),
    "unknown package option": (_options(":packages: mylib.color, mylib.nope"),
                               ["option :packages:", "expected packages the snapshot has (mylib.color,",
                                "found unknown package 'mylib.nope'"]),
    "unknown device option": (_options(":devices: tpu"),
                              ["option :devices:", "expected a subset of cpu, cuda", "found unknown device 'tpu'"]),
    "device option not in snapshot": (_options(":devices: cuda"),
                                      ["option :devices:", "expected devices the snapshot was probed on (cpu)",
                                       "found 'cuda'"]),
    "empty option": (_options(":packages:"), ["option :packages:", "expected at least one name"]),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_bad_input_gives_one_error_and_no_partial_page(make_app, tmp_path, kind):
    edit, fragments = CASES[kind]
    src = copy_root("bad", tmp_path)
    edit(src)
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)

    lines = warnings(app).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{src / 'index.rst'}:4: ERROR: _data/export_support.json")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in app.status.getvalue() + warnings(app)
    assert app.statuscode == 1

    page = soup(app)
    assert page.select_one("div.kexport") is None and page.select_one(".kexport-cards") is None
    notice = page.select_one("div.kexport-error")
    assert notice is not None and fragments[0] in notice.get_text()


def test_a_failed_page_is_reported_again_on_the_next_build(make_app, tmp_path):
    src = copy_root("bad", tmp_path)
    _write_snapshot("not json")(src)
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert app.statuscode == 1
    # Nothing changed, but the page is read (and fails) again: a broken
    # snapshot cannot turn into a green build by building twice.
    again = make_app("html", srcdir=src, freshenv=False)
    build(again)
    assert "not valid JSON" in warnings(again)
    assert again.statuscode == 1


@pytest.mark.parametrize("name, value, expected", [
    ("kexport_package_order", "mylib.color", "a list of package names, found str 'mylib.color'"),
    ("kexport_section_titles", {"mylib.color": "Colour"},
     "a dict of section key -> title for 'mylib.color', found str 'Colour'"),
    ("kexport_inventories", {"lib": 3}, "a path, or a (base URL, path) pair of strings, for 'lib', found int 3"),
    ("kexport_warn_unresolved", "yes", "True or False, found str 'yes'"),
])
def test_bad_config_values_give_one_clear_error(make_app, tmp_path, name, value, expected):
    src = copy_root("bad", tmp_path)
    # In conf.py itself: -D style overrides are converted to the default's type.
    with open(src / "conf.py", "a") as conf:
        conf.write(f"{name} = {value!r}\n")
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert warnings(app).strip().splitlines() == [f"ERROR: conf.py: {name} must be {expected}."]
    assert app.statuscode == 1
    # the value falls back to its default and the page is still built
    assert soup(app).select_one("div.kexport") is not None


def test_sphinx_build_prints_one_line_and_exits_non_zero(tmp_path):
    """The real command line: no traceback, no "please report", status 1."""
    src = copy_root("bad", tmp_path)
    _edit_snapshot(lambda d: d["cases"][1]["results"]["cpu"]["onnx"].__setitem__("status", "maybe"))(src)
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(tmp_path / "out"),
         "-d", str(tmp_path / "doctrees")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=subprocess_env(),
    )
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "ERROR: _data/export_support.json: case #1 ('color.hsv_to_rgb') field results.cpu.onnx.status" in lines[0]
    assert "Traceback" not in result.stdout + result.stderr
