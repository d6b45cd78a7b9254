"""Sphinx configuration of sphinx-kexport's documentation, whose showcase is Kornia's export-support page.

``index.rst`` and its sections (get-started, how-to/, reference/, explanation/, showcase/, develop/) document the
project; ``_ext/schema_doc.py``
renders the snapshot format from the package's JSON schema, ``_ext/probe_stages.py``
the probe's stages and modules from the package's source, ``_ext/reuse_keys_doc.py`` the table of reuse keys
from the probe's records of them; ``_inventories/torch.inv`` is the small
intersphinx inventory of torch's docs the fix-class reference links to (``tools/torch_inventory.py``).
``export-support.rst`` renders the snapshot the probe writes
(``python -m sphinx_kexport.probe`` from the repository root, configured by
``[tool.sphinx-kexport]`` in pyproject.toml); ``api/`` holds the autodoc
entries that the page's rows link to, generated from the cases by
``tools/gen_api_pages.py``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # sphinx_kexport from the checkout when it is not installed
sys.path.insert(0, str(HERE / "_ext"))  # this site's own small extensions

project = "sphinx-kexport"
author = "sphinx-kexport contributors"
copyright = "2025, sphinx-kexport contributors"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "sphinx_kexport",
    "schema_doc",
    "probe_stages",
    "cli_doc",
    "reuse_keys_doc",
]
needs_sphinx = "7.4"  # the guide documents configuration values with the `confval` directive

# _kornia: the checkout of Kornia's source the case modules read its tests from (showcase/kornia.rst); its own docs
# are not part of this site
exclude_patterns = ["_build", "_ext", "_inventories", "_kornia", "cases", "tools"]

# -- intersphinx ---------------------------------------------------------------
# The fix-class reference (reference/fix-classes.rst) links to torch's documentation. The build works offline:
# intersphinx reads a local inventory of the few entries it links to (tools/torch_inventory.py writes it),
# never the network.

intersphinx_mapping = {
    "torch": ("https://docs.pytorch.org/docs/stable/", str(HERE / "_inventories" / "torch.inv")),
}

if importlib.util.find_spec("pydata_sphinx_theme") is not None:
    html_theme = "pydata_sphinx_theme"
    html_theme_options = {
        "navigation_with_keys": False,
        # the compatibility tables need the width more than an "On this page" column (the
        # summary by package links every section)
        "secondary_sidebar_items": {"export-support": []},
    }
else:
    html_theme = "alabaster"
html_title = "sphinx-kexport"

# -- autodoc -----------------------------------------------------------------

autodoc_typehints = "none"  # Kornia's annotations are long strings; signatures stay readable without them
autodoc_member_order = "bysource"

# -- sphinx-kexport ----------------------------------------------------------

kexport_package_order = [
    "kornia.augmentation",
    "kornia.color",
    "kornia.enhance",
    "kornia.filters",
    "kornia.morphology",
    "kornia.geometry",
    "kornia.feature",
    "kornia.losses",
    "kornia.metrics",
    "kornia.contrib",
    "kornia.models",
    "kornia.sensors",
    "kornia.image",
    "kornia.core",
    "kornia.utils",
]
kexport_section_titles = {
    "kornia.augmentation": {"": "2D augmentations", "3d": "3D augmentations", "container": "Containers"},
    "kornia.geometry": {
        "transform": "Transforms",
        "conversions": "Conversions",
        "camera": "Camera models",
        "epipolar": "Epipolar geometry",
        "liegroup": "Lie groups",
        "linalg": "Linear algebra",
        "homography": "Homography",
        "boxes": "Boxes",
        "depth": "Depth",
        "subpix": "Sub-pixel",
        "calibration": "Calibration",
    },
    "kornia.feature": {
        "responses": "Responses",
        "detectors": "Detectors",
        "descriptors": "Descriptors",
        "orientation": "Orientation and affine shape",
        "matching": "Matching",
        "laf": "Local affine frames",
    },
}
# Every surveyed operator has an API entry in api/; say so if one stops linking.
kexport_warn_unresolved = True
# Each API entry shows its status strip, linking to its row on the survey page.
kexport_api_badges = True

# -- docstrings --------------------------------------------------------------
# Kornia's docstrings use roles, directives and substitutions that are not
# defined here (:cite:, custom |substitutions|, images, math, cross-references
# into Kornia's own docs) and would warn under ``sphinx-build -W``. The API
# pages exist so that the export-support rows have something to link to, so
# each docstring is cut down to its summary: the first paragraph, as plain
# text (roles become inline literals, markup characters are escaped).

_ROLE = re.compile(r":(?:[\w-]+:)*[\w-]+:`(?:~|!)?([^`]*)`")
_LITERAL = re.compile(r"(``.+?``)")


def _plain(text: str) -> str:
    text = _ROLE.sub(lambda m: f"``{m.group(1).strip() or ' '}``", text)
    parts = _LITERAL.split(text)
    for i in range(0, len(parts), 2):  # outside inline literals
        part = parts[i].replace("\\", "\\\\")
        part = re.sub(r"([*`|])", r"\\\1", part)
        part = re.sub(r"(\w)_(?=\W|$)", r"\1\\_", part)  # foo_ would be a reference
        parts[i] = part
    text = "".join(parts)
    return text[:-2] + ":" if text.endswith("::") else text


def _summary(lines: list[str]) -> list[str]:
    paragraph: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if not paragraph and (stripped.startswith("..") or stripped.startswith(">>>")):
            continue  # a directive or doctest before any prose
        if paragraph and stripped.startswith(".."):
            break
        paragraph.append(stripped)
    return [_plain(" ".join(paragraph))] if paragraph else []


def keep_summary(app, what, name, obj, options, lines: list[str]) -> None:
    if name.startswith("kornia"):  # our own API reference (reference/python-api.rst) keeps its whole docstrings
        lines[:] = _summary(lines)


def setup(app):
    app.connect("autodoc-process-docstring", keep_summary)
