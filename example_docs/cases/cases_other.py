"""Survey cases for the rest of kornia, from docstring examples only: ``kornia.core`` (checks and
batching helpers), ``kornia.image`` (drawing, conversion), ``kornia.models`` (model families built
with random weights in their examples) and ``kornia.sensors`` (camera projection models)."""

from sphinx_kexport.probe import cases_from_docstrings

CASES = [*cases_from_docstrings("kornia.core"), *cases_from_docstrings("kornia.image"),
         *cases_from_docstrings("kornia.models"), *cases_from_docstrings("kornia.sensors")]
