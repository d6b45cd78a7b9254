"""The README and the docs' quickstart install torch the same way: the pinned version from the CPU index
(plain PyPI's wheel is the CUDA build, gigabytes more, which a new user following the quickstart got)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TORCH_INSTALL = re.compile(r"pip install (torch==\S+)(.*)")


def torch_installs(path: Path) -> list[tuple[str, str]]:
    """(requirement, the rest of the line) of each ``pip install torch==...`` in ``path``."""
    return [(m.group(1), m.group(2).split("#")[0].strip()) for m in TORCH_INSTALL.finditer(path.read_text())]


def test_the_quickstart_installs_torch_as_the_readme_does():
    readme = torch_installs(REPO / "README.md")
    quickstart = torch_installs(REPO / "example_docs" / "get-started.rst")
    assert readme and quickstart
    assert set(quickstart) == set(readme) == {(readme[0][0], "--index-url https://download.pytorch.org/whl/cpu")}


def _probe_extra() -> dict[str, str]:
    """name -> specifier of each requirement of the ``probe`` extra."""
    import tomllib

    from packaging.requirements import Requirement

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return {req.name: str(req.specifier) for req in map(Requirement, extras["probe"])}


def test_the_probe_extra_installs_pytest_for_the_tests_discovery():
    """cases_from_tests runs the library's tests with pytest: the extra a survey installs brings it, at a
    version the pinned constraints allow."""
    from packaging.specifiers import SpecifierSet

    pins = dict(line.split("==", 1) for line in (REPO / "scripts" / "constraints.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    extra = _probe_extra()
    assert "pytest" in extra
    assert pins["pytest"] in SpecifierSet(extra["pytest"])
    # where test discovery is documented, the extra that installs pytest is said
    assert 'pytest, which ``pip install "sphinx-kexport[probe]"`` installs' in \
        (REPO / "example_docs" / "how-to" / "discover.rst").read_text()


def test_the_quickstart_installs_a_checkout_after_the_cpu_torch():
    text = (REPO / "example_docs" / "get-started.rst").read_text()
    checkout = text.index('pip install -e ".[probe]"')
    assert TORCH_INSTALL.search(text[:checkout]) is not None  # the CPU torch first: the extra would pull CUDA's
