import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beyondlib, documented with autodoc

project = "beyondlib"
copyright = "2026, the beyondlib authors"
author = "the beyondlib authors"
version = release = "1.3.0"
extensions = ["sphinx.ext.autodoc", "sphinx_kexport"]
kexport_package_order = ["beyondlib.color", "beyondlib.geometry"]
kexport_api_badges = True
exclude_patterns = ["_build"]
