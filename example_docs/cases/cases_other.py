"""Survey cases for the rest of kornia, from docstring examples and kornia's own tests: ``kornia.core``
(checks and batching helpers), ``kornia.image`` (drawing, conversion), ``kornia.models`` (model families
built with random weights in their examples) and ``kornia.sensors`` (camera projection models)."""

from sphinx_kexport.probe import cases_from_docstrings
from _kornia_tests import from_tests

DOC = [spec for name in ("core", "image", "models", "sensors") for spec in cases_from_docstrings(f"kornia.{name}")]
# not kornia.models' tests: each test builds its own full-size model (SigLip2, Kimi-VL, PaliGemma), and discovery
# holds every configuration it keeps until the tests end: 7.2 GB alone, 24 GB in this module's inventory child
# beside the docstring examples' models (see guide/kornia.rst)
CASES = DOC + [spec for name in ("core", "image", "sensors") for spec in from_tests(f"kornia.{name}", name, DOC)]
