"""An installed (non-editable) wheel finds its templates and static files.

The wheel is built from this checkout and installed into a fresh virtual
environment that does not see the checkout. Sphinx and the other
dependencies come from the test interpreter's site-packages through a .pth
file (this machine has no package index to install them from; only the
package under test needs to come from the wheel). The build then runs from
a folder outside the checkout, and the page must carry the script and
stylesheet copied out of the installed package.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from page_support import REPO, copy_root

from sphinx_kexport.page.sphinx_env.resources import STATIC_DIR as STATIC
from sphinx_kexport.page.sphinx_env.resources import TEMPLATES_DIR as TEMPLATES

pytestmark = pytest.mark.slow


def _run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result


def _clean_env() -> dict[str, str]:
    """No PYTHONPATH, no virtualenv leaking in from the test run."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a fresh venv with sphinx-kexport installed from its wheel."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("building the wheel needs hatchling (pip install hatchling)")
    if not any(STATIC.glob("*.js")):
        pytest.skip("static/ holds no script yet")
    work = tmp_path_factory.mktemp("wheel")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(work / "dist"), str(REPO), cwd=work)
    wheel = next((work / "dist").glob("sphinx_kexport-*.whl"))
    (work / "wheel-name").write_text(str(wheel))

    venv = work / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=work)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         str(wheel), cwd=work)
    site = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                     cwd=work, env=_clean_env()).stdout.strip())
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_kexport_test_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")
    return python


def test_installed_package_uses_its_own_folders(installed, tmp_path):
    found = _run(str(installed), "-c",
                 "import sphinx_kexport, sphinx_kexport.page.sphinx_env.resources as p; "
                 "print(sphinx_kexport.__file__); print(p.static_dir()); print(p.templates_dir())",
                 cwd=tmp_path, env=_clean_env()).stdout.split()
    venv = installed.parent.parent
    for path in found:
        assert Path(path).is_relative_to(venv), found
    assert {f.name for f in Path(found[1]).iterdir()} >= {f.name for f in STATIC.iterdir()}
    assert {f.name for f in Path(found[2]).iterdir()} >= {f.name for f in TEMPLATES.iterdir()}


def test_installed_wheel_builds_a_page_with_its_assets(installed, tmp_path):
    src = copy_root("basic", tmp_path)
    out = tmp_path / "out"
    _run(str(installed), "-m", "sphinx", "-q", "-W", "-b", "html", str(src), str(out), cwd=tmp_path,
         env=_clean_env())
    page = BeautifulSoup((out / "index.html").read_text(), "lxml")
    assert page.select_one("div.kexport table") is not None
    assets = [s["src"] for s in page.select("script[src]") if "kexport" in s["src"]]
    assets += [link["href"] for link in page.select("link[rel=stylesheet]") if "kexport" in link["href"]]
    assert {Path(a.split("?")[0]).suffix for a in assets} == {".js", ".css"}
    for asset in assets:
        copied = out / asset.split("?")[0]
        assert copied.read_bytes() == (STATIC / copied.name).read_bytes()


def test_the_wheel_carries_the_license_the_typing_marker_and_a_console_script(installed, tmp_path):
    import zipfile

    wheel = Path((installed.parent.parent.parent / "wheel-name").read_text())
    names = zipfile.ZipFile(wheel).namelist()
    licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert zipfile.ZipFile(wheel).read(licence) == (REPO / "LICENSE").read_bytes()
    assert "sphinx_kexport/py.typed" in names
    # the page's assets are package files of sphinx_kexport/page/, carried as they are in the checkout
    for folder in (STATIC, TEMPLATES):
        for asset in folder.iterdir():
            inside = asset.relative_to(REPO).as_posix()
            assert zipfile.ZipFile(wheel).read(inside) == asset.read_bytes(), inside
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: BSD-3-Clause" in metadata and "Classifier: Programming Language :: Python :: 3.11" \
        in metadata and "Keywords:" in metadata
    script = installed.parent / "sphinx-kexport-probe"
    helped = _run(str(script), "--help", cwd=tmp_path, env=_clean_env())
    assert "Probe every registered case" in helped.stdout
    wrong = subprocess.run([str(script), "diff", "missing.json", "other.json"], cwd=tmp_path, env=_clean_env(),
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "missing.json" in wrong.stderr and "Traceback" not in wrong.stderr
