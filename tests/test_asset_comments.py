"""The comments of page/static/ and page/templates/ name modules that exist: a module moved or renamed leaves no
comment pointing a reader at a file that is gone."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "sphinx_kexport"
ASSETS = PACKAGE / "page"  # static/ and templates/ live in the page package


def named_modules() -> list[tuple[str, str]]:
    found = []
    for folder in ("static", "templates"):
        for path in sorted((ASSETS / folder).iterdir()):
            for name in re.findall(r"[\w/]+\.py\b", path.read_text(encoding="utf-8")):
                found.append((f"{folder}/{path.name}", name))
    return found


def test_the_assets_name_modules_at_all():
    assert len(named_modules()) >= 10  # the check below has something to check


def test_every_module_an_asset_names_exists():
    modules = [p.relative_to(REPO).as_posix() for p in PACKAGE.rglob("*.py")]
    missing = [f"{where}: {name}" for where, name in named_modules()
               if not any(module == name or module.endswith("/" + name) for module in modules)]
    assert not missing, "comments name modules that do not exist:\n" + "\n".join(missing)


def test_every_template_line_is_short_enough_to_review():
    # a long line is cut inside a {# #} comment, so the page's bytes stay as they were
    long = [f"templates/{path.name}:{number}: {len(line)} characters"
            for path in sorted((ASSETS / "templates").glob("*.jinja"))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if len(line) > 160]
    assert not long, "\n".join(long)
