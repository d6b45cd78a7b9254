"""Survey cases for the rest of kornia, from docstring examples and kornia's own tests: ``kornia.core``
(checks and batching helpers), ``kornia.image`` (drawing, conversion), ``kornia.models`` (model families
built with random weights in their examples) and ``kornia.sensors`` (camera projection models)."""

from sphinx_kexport.probe import cases_from_docstrings
from _kornia_tests import from_tests

PACKAGES = ("core", "image", "models", "sensors")
DOC = [spec for name in PACKAGES for spec in cases_from_docstrings(f"kornia.{name}")]
CASES = DOC + [spec for name in PACKAGES for spec in from_tests(f"kornia.{name}", name, DOC)]
