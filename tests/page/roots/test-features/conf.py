import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # featurelib, documented with autodoc

project = "featurelib"
copyright = "2026, the featurelib authors"
author = "the featurelib authors"
version = release = "1.3.0"
extensions = ["sphinx.ext.autodoc", "sphinx_kexport"]
kexport_package_order = ["featurelib.color", "featurelib.geometry"]
kexport_api_badges = True
exclude_patterns = ["_build"]
