"""The survey of tests/probe_cases/doclib from its docstring examples alone (no hand-written case)."""

from sphinx_kexport.probe import cases_from_docstrings

CASES = cases_from_docstrings("probe_cases.doclib", time_limit=2)
