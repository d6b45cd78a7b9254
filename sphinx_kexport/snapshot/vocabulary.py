"""The words of the contract: paths, devices, statuses, stages and their labels.

The page, the probe and the JSON schema all spell them this way; the schema's
enums are checked against these tuples by the test suite.
"""

from __future__ import annotations

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)  # format 1 is upgraded on reading (snapshot/upgrade.py)
PATHS = ("onnx", "export", "compile")
PATH_LABELS = {"onnx": "ONNX", "export": "torch.export", "compile": "torch.compile"}
DEVICES = ("cpu", "cuda")
DEVICE_LABELS = {"cpu": "CPU", "cuda": "CUDA"}
# timeout: the path (or its dynamic-batch pass) ran past the time limit, so the probe does not know; neither
# supported nor failing, and measured again by a run with a larger limit (the record keeps ``time_limit``).
STATUS_TIMEOUT = "timeout"
STATUSES = ("ok", "ok-breaks", "ok-unverified", "mismatch", "fail", STATUS_TIMEOUT, "n/a")
SUPPORTED = frozenset({"ok", "ok-breaks", "ok-unverified"})
FAILING = frozenset({"mismatch", "fail"})
# Left out of the supported / probed counts: nothing to capture (n/a), or not known (timeout).
UNCOUNTED = frozenset({"n/a", STATUS_TIMEOUT})
STAGES = ("", "eager", "no-tensor", "capture", "translate", "check", "load", "run", "compare", "process", "skip")
# The dynamic-batch result inside a supported path's result (``dynamic.status``): does the capture hold
# at another batch size? ok: yes; static: only at the traced batch size; fail: the dynamic capture fails
# for another reason; timeout: the pass ran past the time limit; n/a: no batch dimension.
DYNAMIC_STATUSES = ("ok", "static", "fail", STATUS_TIMEOUT, "n/a")
# Where a case came from (the case's ``origin``, format 2): written by hand in a case module, recorded
# from a docstring example of the library, or recorded from a test of the library's own test suite.
ORIGIN_HAND = "hand-written"
ORIGIN_DOCSTRING = "docstring"
ORIGIN_TEST = "test"
ORIGINS = (ORIGIN_HAND, ORIGIN_DOCSTRING, ORIGIN_TEST)
# Why an object of the library whose docstring has an example yields no case (the snapshot's
# ``objects_without_cases``, format 2), and how people read each reason.
NO_CASE_WORDS = {
    "no tensor call": "no tensor call",
    "raised": "the example raised",
    "download": "it tried to download",
    "time limit": "it ran past the time limit",
    "import failed": "the module does not import",
    "unparsable": "doctest cannot parse its docstring",
}
NO_CASE_KINDS = tuple(NO_CASE_WORDS)
# The stage of an n/a result whose case never reached a capture path: it raised when run eagerly, or it
# returned no tensor (format 2; format 1 said both with stage "eager" and told them apart by wording).
STAGE_EAGER = "eager"
STAGE_NO_TENSOR = "no-tensor"
STAGE_SKIP = "skip"
STAGE_PROCESS = "process"
# What the probe measures with unless told otherwise; the page and the repro snippets fall back to them.
DEFAULT_OPSET = 18
DEFAULT_ATOL = 2e-4
DEFAULT_RTOL = 1e-3
