"""The survey of tests/probe_cases/metriclib from its docstring examples alone."""

from sphinx_kexport.probe import cases_from_docstrings

CASES = cases_from_docstrings("probe_cases.metriclib", time_limit=5)
