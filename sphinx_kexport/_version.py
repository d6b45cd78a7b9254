"""The package's version, in a module of its own: ``pyproject.toml`` reads it from here
(``[tool.hatch.version]``), ``sphinx_kexport`` re-exports it, and the Sphinx half imports it
without importing the package's ``__init__`` (which imports the Sphinx half back)."""

__version__ = "0.1.0"
