"""The probe: measure, case by case, whether a library's operators export and compile.

Register cases in a case module with :func:`case` (``CASES = [case(...)]``)
and run ``python -m sphinx_kexport.probe``. Importing this package does not
import torch; :func:`case` does, because it checks its inputs.
"""

from __future__ import annotations

from .docstrings import cases_from_docstrings, merge_cases
from .registry import CaseError, CaseSpec, case

__all__ = ["case", "CaseSpec", "CaseError", "cases_from_docstrings", "merge_cases"]
