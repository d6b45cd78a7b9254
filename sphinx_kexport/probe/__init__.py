"""The probe: measure, case by case, whether a library's operators export and compile.

Register cases in a case module with :func:`case` (``CASES = [case(...)]``)
and run ``python -m sphinx_kexport.probe``, or :func:`run_survey` in-process.
Importing this package does not import torch; :func:`case` does, because it
checks its inputs, and a survey's parent process never does.

Every error the probe raises on purpose derives from :class:`ProbeError` (example_docs/reference/python-api.rst lists
them).
"""

from __future__ import annotations

from .base.errors import ProbeError, ToolError
from .base.network import DownloadBlocked
from .cases.inventory import LoadError, TorchLacks
from .cases.registry import CaseError, CaseSpec, case
from .discover.docstrings.docstrings import cases_from_docstrings, merge_cases
from .discover.recording.call_replay import UnsupportedCall
from .discover.library import DiscoveryError
from .discover.sandbox import ExampleTimeout
from .discover.suite.suite import cases_from_tests
from .discover.suite.suite_run import SuiteError
from .measure.onnx_runtime import NotSaved
from .survey.api import SurveyCounts, SurveyError, SurveyResult, SurveyStopped, run_survey
from .survey.config import ConfigError, ProbeConfig, build_config
from .survey.merge import MergeError, MergeGap

__all__ = ["case", "CaseSpec", "CaseError", "cases_from_docstrings", "cases_from_tests", "merge_cases", "run_survey", "ProbeConfig",
           "build_config", "ConfigError", "SurveyResult", "SurveyCounts", "SurveyError", "ToolError",
           # the other errors, all under ProbeError
           "ProbeError", "SurveyStopped", "LoadError", "TorchLacks", "DiscoveryError", "SuiteError", "MergeError",
           "MergeGap", "DownloadBlocked", "ExampleTimeout", "UnsupportedCall", "NotSaved"]
