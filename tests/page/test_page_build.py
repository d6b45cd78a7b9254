"""How the page behaves across builds: incremental rebuilds after the
snapshot or the API docs change, parallel builds (``-j 2``) and a rendering
process that never imports torch."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

from page_support import build, copy_root, counts, soup, subprocess_env, warnings

from sphinx_kexport import __version__
from sphinx_kexport.page.sphinx_env.env_state import pages


def _touch_later(path) -> None:
    """Make sure the edit is seen as newer than the last build."""
    later = time.time() + 2
    os.utime(path, (later, later))


def test_editing_the_snapshot_rebuilds_the_page(make_app, tmp_path):
    src = copy_root("basic", tmp_path)
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert counts(soup(app).select_one(".kexport-cards"))["onnx-cpu"] == "3 / 6"

    unchanged = make_app("html", srcdir=src)
    build(unchanged)
    assert "0 added, 0 changed" in unchanged.status.getvalue() or "no targets are out of date" in unchanged.status.getvalue()

    snapshot = src / "_data" / "export_support.json"
    data = json.loads(snapshot.read_text())
    data["cases"][1]["results"]["cpu"]["onnx"] = {"status": "ok", "detail": "", "stage": "", "where": ""}
    snapshot.write_text(json.dumps(data))
    _touch_later(snapshot)
    edited = make_app("html", srcdir=src)
    build(edited)
    assert "1 changed" in edited.status.getvalue()
    assert warnings(edited) == ""
    assert counts(soup(edited).select_one(".kexport-cards"))["onnx-cpu"] == "4 / 6"


def test_links_follow_the_api_docs_without_touching_the_page(make_app, tmp_path):
    # colour.rst holds a page and is not api.rst's toctree parent, so only the
    # extension can have it written again when api.rst changes.
    src = copy_root("parallel", tmp_path)
    app = make_app("html", srcdir=src, freshenv=True)
    build(app)
    assert soup(app, "colour.html").select_one('div.kexport a[href="api.html#mylib.color.rgb_to_gray"]') is not None

    api = src / "api.rst"
    api.write_text(api.read_text().replace(".. py:function:: rgb_to_gray(image)", ".. py:function:: to_gray(image)"))
    _touch_later(api)
    again = make_app("html", srcdir=src)
    build(again)
    assert warnings(again) == ""
    assert "1 changed" in again.status.getvalue()  # only api.rst was read ...
    # ... and the page was written again with the link gone
    page = soup(again, "colour.html")
    assert page.select_one('div.kexport a[href="api.html#mylib.color.rgb_to_gray"]') is None
    assert page.select_one('div.kexport a[href="api.html#mylib.color.hsv_to_rgb"]') is not None


def test_parallel_build_gives_the_same_pages(make_app, tmp_path):
    serial_src = copy_root("parallel", tmp_path / "serial")
    parallel_src = copy_root("parallel", tmp_path / "parallel")
    serial = make_app("html", srcdir=serial_src, freshenv=True)
    build(serial)
    parallel = make_app("html", srcdir=parallel_src, freshenv=True, parallel=2)
    build(parallel)
    assert warnings(serial) == "" and warnings(parallel) == ""
    # it really ran in parallel: progress is reported per chunk ("all .. geometry")
    status = re.sub(r"\x1b\[[0-9;]*m", "", parallel.status.getvalue())
    assert re.search(r"reading sources\.\.\. \[ *\d+%\] \S+ \.\. \S+", status)
    assert re.search(r"writing output\.\.\. \[ *\d+%\] \S+ \.\. \S+", status)
    assert sorted(pages(parallel.env)) == ["all", "colour", "geometry"]  # env data merged back
    for page in ("all.html", "colour.html", "geometry.html"):
        assert str(soup(parallel, page).select_one("div.kexport")) == str(soup(serial, page).select_one("div.kexport"))


def test_setup_declares_version_and_parallel_safety(make_app, tmp_path):
    app = make_app("html", srcdir=copy_root("basic", tmp_path))
    extension = app.extensions["sphinx_kexport"]
    assert extension.version == __version__
    assert extension.parallel_read_safe is True and extension.parallel_write_safe is True
    assert "sphinx_design" in app.extensions


def test_rendering_never_imports_torch(tmp_path):
    """A build (``sphinx-build -n -W``) in a fresh interpreter where importing torch raises."""
    src = copy_root("basic", tmp_path)
    script = textwrap.dedent(f"""
        import sys

        class NoTorch:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError("rendering must not import torch")
                return None

        sys.meta_path.insert(0, NoTorch())
        from sphinx.cmd.build import build_main
        status = build_main(["-q", "-n", "-W", "-b", "html", {str(src)!r}, {str(tmp_path / "out")!r}])
        assert not [m for m in sys.modules if m == "torch" or m.startswith("torch.")]
        sys.exit(status)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path, env=subprocess_env())
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "index.html").read_text().count('class="kexport"') == 1
