"""The probe: measure, case by case, whether a library's operators export and compile.

Register cases in a case module with :func:`case` (``CASES = [case(...)]``)
and run ``python -m sphinx_kexport.probe``, or :func:`run_survey` in-process.
Importing this package does not import torch; :func:`case` does, because it
checks its inputs, and a survey's parent process never does.
"""

from __future__ import annotations

from .cases.registry import CaseError, CaseSpec, case
from .discover.docstrings import cases_from_docstrings, merge_cases
from .discover.suite import cases_from_tests
from .survey.api import SurveyCounts, SurveyError, SurveyResult, ToolError, run_survey
from .survey.config import ConfigError, ProbeConfig, build_config

__all__ = ["case", "CaseSpec", "CaseError", "cases_from_docstrings", "cases_from_tests", "merge_cases", "run_survey", "ProbeConfig",
           "build_config", "ConfigError", "SurveyResult", "SurveyCounts", "SurveyError", "ToolError"]
