"""Survey cases for the rest of kornia, from docstring examples and kornia's own tests: ``kornia.core``
(checks and batching helpers), ``kornia.image`` (drawing, conversion), ``kornia.models`` (model families
built with random weights in their examples) and ``kornia.sensors`` (camera projection models)."""

import kornia.image

from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand
from _kornia_tests import from_tests

HAND = [case("make_grid", kornia.image.make_grid, [rand(4, 3, 8, 8, seed=1)], {"n_row": 2}, package="kornia.image",
             note="images live (4,3,8,8); n_row=2 baked; a 2x2 grid with 2-pixel padding")]

DOC = [spec for name in ("core", "image", "models", "sensors") for spec in cases_from_docstrings(f"kornia.{name}")]
# not kornia.models' tests: each test builds its own full-size model (SigLip2, Kimi-VL, PaliGemma), and discovery
# holds every configuration it keeps until the tests end: 7.2 GB alone, 24 GB in this module's inventory child
# beside the docstring examples' models (see guide/kornia.rst)
CASES = HAND + DOC + [spec for name in ("core", "image", "sensors")
                      for spec in from_tests(f"kornia.{name}", name, HAND, DOC)]
