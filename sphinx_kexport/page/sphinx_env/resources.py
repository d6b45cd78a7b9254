"""Where the page's templates/ and static/ folders are: inside ``page/``, beside the code that uses them.

As sphinx-design keeps its ``static/`` next to its extension module, the
page's Jinja templates and its script and stylesheet live in the package
(``sphinx_kexport/page/templates``, ``sphinx_kexport/page/static``): the
wheel carries them as package files, and an editable checkout and an
installed copy find them in the same place.
"""

from __future__ import annotations

from pathlib import Path

PAGE_DIR = Path(__file__).resolve().parents[1]  # sphinx_kexport/page/
TEMPLATES_DIR = PAGE_DIR / "templates"
STATIC_DIR = PAGE_DIR / "static"


def _present(folder: Path) -> Path:
    if not folder.is_dir():
        raise FileNotFoundError(f"sphinx-kexport cannot find its {folder.name}/ folder ({folder}); "
                                "reinstall sphinx-kexport.")
    return folder


def templates_dir() -> Path:
    """The Jinja templates the HTML page is rendered with."""
    return _present(TEMPLATES_DIR)


def static_dir() -> Path:
    """The browser script and stylesheet."""
    return _present(STATIC_DIR)
