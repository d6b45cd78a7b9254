"""Helpers for the page tests (tests/test_page_*.py): reading what a real
Sphinx build produced."""

from __future__ import annotations

import copy
import os
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from docutils import nodes

from sphinx_kexport.page.nodes import kexport_controls, kexport_page, kexport_reasons, kexport_table

REPO = Path(__file__).resolve().parents[2]
ROOTS = Path(__file__).resolve().parent / "roots"
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def build(app):
    """Build, then release the app's global docutils state so that the next
    app made in the same test starts clean (two live apps clash)."""
    try:
        app.build()
    finally:
        app.cleanup()
    return app


def warnings(app) -> str:
    """Everything the build wrote to the warning stream (warnings and errors)."""
    return _ANSI.sub("", app.warning.getvalue())


def subprocess_env() -> dict[str, str]:
    """Environment for a child Python that must import this checkout's sphinx_kexport."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(REPO) + (os.pathsep + path if path else "")}


def soup(app, page: str = "index.html") -> BeautifulSoup:
    return BeautifulSoup((Path(app.outdir) / page).read_text(encoding="utf-8"), "lxml")


def output(app, name: str) -> str:
    return (Path(app.outdir) / name).read_text(encoding="utf-8")


def counts(tag) -> dict[str, str]:
    """kexport-count elements under ``tag``, by key (the first of each key)."""
    found: dict[str, str] = {}
    for element in tag.select(".kexport-count"):
        key = next(c[len("kexport-count--"):] for c in element["class"] if c.startswith("kexport-count--"))
        found.setdefault(key, element.get_text())
    return found


def tables(doctree: nodes.Node) -> list[kexport_table]:
    return list(doctree.findall(kexport_table))


def copy_root(name: str, destination: Path) -> Path:
    """A private copy of tests/page/roots/test-<name>, for tests that edit files."""
    target = destination / name
    shutil.copytree(ROOTS / f"test-{name}", target)
    return target


def basic_root_with_a_timeout(destination: Path) -> tuple[Path, dict]:
    """A copy of test-basic, upgraded to format 2, whose first ok torch.compile cell ran past the time
    limit instead; (the copy, that case's entry)."""
    import json

    from sphinx_kexport.snapshot.result_records import timed_out, with_breaks
    from sphinx_kexport.snapshot.upgrade import upgrade_format_1

    src = copy_root("basic", destination)
    data_file = src / "_data" / "export_support.json"
    data = upgrade_format_1(json.loads(data_file.read_text()))
    slow = next(c for c in data["cases"] if c["results"].get("cpu", {}).get("compile", {}).get("status") == "ok")
    slow["results"]["cpu"]["compile"] = with_breaks("compile", timed_out(
        "ran past the time limit of 300 s during torch.compile", "mylib/slow.py:7", 300.0))
    data_file.write_text(json.dumps(data))
    return src, slow


def skeleton(page: kexport_page) -> str:
    """The page's doctree as pseudo-XML, with the row payloads cut down to
    "id statuses" so the regression file stays readable."""
    page = copy.deepcopy(page)
    for table in page.findall(kexport_table):
        table["rows"] = [row["id"] + ":" + ",".join(c["status"] for c in row["cells"]) for row in table["rows"]]
        table["columns"] = [c["key"] for c in table["columns"]]
        table["links"] = [f"{k}={v}" for k, v in sorted(table.get("links", {}).items())]
    for node in (page, *page.findall(kexport_controls)):
        node["columns"] = [c["key"] for c in node["columns"]]
    for node in page.findall(kexport_reasons):
        node["entries"] = [f"{e['id']}:{e['total']}" for e in node["entries"]]
        node["columns"] = [c["key"] for c in node["columns"]]
    return page.pformat()


def check_regression(text: str, name: str) -> None:
    """Compare with tests/page/regressions/<name>; KEXPORT_REGEN=1 rewrites it."""
    path = REGRESSIONS / name
    if os.environ.get("KEXPORT_REGEN") or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not os.environ.get("KEXPORT_REGEN"):
            pytest.fail(f"{path} did not exist and was written; review it and run again")
        return
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"doctree differs from {path} (KEXPORT_REGEN=1 rewrites it after review)"
