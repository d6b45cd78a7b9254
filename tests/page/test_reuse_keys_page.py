"""The explanation's table of reuse keys is drawn from the probe's records of them, without importing torch
(a real Sphinx build of a one-page project with example_docs/_ext/reuse_keys_doc.py, in a fresh process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup

from sphinx_kexport.probe.base.reuse.keys import KEYS, REASONS, Reason, reasons_of, words

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "example_docs"
BUILD = """
import json, sys
from sphinx.cmd.build import build_main
code = build_main(["-W", "-q", "-b", "html", sys.argv[1], sys.argv[2]])
print(json.dumps({"code": code, "torch": "torch" in sys.modules}))
"""


def test_the_table_lists_every_key_of_the_module_and_its_reasons_words(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(f"import sys\nsys.path[:0] = [{str(REPO)!r}, {str(EXAMPLE / '_ext')!r}]\n"
                                    "extensions = ['reuse_keys_doc']\n")
    (source / "index.rst").write_text("Keys\n====\n\n.. reuse-keys::\n")
    done = subprocess.run([sys.executable, "-c", BUILD, str(source), str(tmp_path / "html")], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"code": 0, "torch": False}
    soup = BeautifulSoup((tmp_path / "html" / "index.html").read_text(encoding="utf-8"), "html.parser")
    rows = [[cell.get_text(" ", strip=True) for cell in row.select("td")]
            for row in soup.select("table.reuse-keys tbody tr")]
    assert [row[0] for row in rows] == [key.id for key in KEYS]
    for row, key in zip(rows, KEYS):
        assert row[2:6] == [key.covers, key.changed_by, key.on_change, key.held_in]
        for kind in reasons_of(key.id):  # its reasons, a field as <field>
            assert kind.words.split("{")[0].strip() in row[6]


def test_the_explanation_page_holds_the_table_and_the_site_lists_the_page():
    assert ".. reuse-keys::" in (EXAMPLE / "explanation" / "reuse-keys.rst").read_text()
    assert "explanation/reuse-keys" in (EXAMPLE / "index.rst").read_text()
    assert "reuse_keys_doc" in (EXAMPLE / "conf.py").read_text()


def test_every_reason_belongs_to_known_keys_and_has_words():
    ids = {key.id for key in KEYS}
    assert all(set(kind.keys) <= ids for kind in REASONS.values())
    assert words(Reason("code-changed", {"refs": ["a.py::f", "a.py::g", "b.py::h", "c.py::k"]})) == \
        "code it ran changed: a.py::f, a.py::g, b.py::h and 1 more"
    assert words(Reason("environment", {"changes": [["torch", "2.12.0", "2.13.0"], ["opset", 17, 18]]})) == \
        "new environment (torch 2.12.0 -> 2.13.0, opset 17 -> 18)"
    assert words(Reason("library-version", {"before": None, "now": "1.0"})) == \
        "the library's version changed (none -> 1.0)"
