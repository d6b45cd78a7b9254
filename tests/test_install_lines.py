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
