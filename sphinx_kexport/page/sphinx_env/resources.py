"""Where the page's templates/ and static/ folders are.

In the repository they sit at the top level, next to ``pyproject.toml``; the
wheel copies them into the package (``sphinx_kexport/templates`` and
``sphinx_kexport/static``). An installed copy must find the package's own
folders, an editable checkout the repository's, so both places are tried,
the package first.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2]  # sphinx_kexport/
REPO_DIR = PACKAGE_DIR.parent


def _locate(name: str) -> Path:
    inside = PACKAGE_DIR / name
    if inside.is_dir():
        return inside
    # Only trust the parent folder when it is this project's checkout: an
    # installed package's parent is site-packages, where a "static" folder
    # would belong to somebody else.
    beside = REPO_DIR / name
    if beside.is_dir() and (REPO_DIR / "pyproject.toml").is_file():
        return beside
    raise FileNotFoundError(
        f"sphinx-kexport cannot find its {name}/ folder (looked in {inside} and {beside}); "
        "reinstall sphinx-kexport."
    )


def templates_dir() -> Path:
    """The Jinja templates the HTML page is rendered with."""
    return _locate("templates")


def static_dir() -> Path:
    """The browser script and stylesheet."""
    return _locate("static")
