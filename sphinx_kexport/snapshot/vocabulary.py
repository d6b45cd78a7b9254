"""The words of the contract: paths, devices, statuses, stages and their labels.

The page, the probe and the JSON schema all spell them this way; the schema's
enums are checked against these tuples by the test suite.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
PATHS = ("onnx", "export", "compile")
PATH_LABELS = {"onnx": "ONNX", "export": "torch.export", "compile": "torch.compile"}
DEVICES = ("cpu", "cuda")
DEVICE_LABELS = {"cpu": "CPU", "cuda": "CUDA"}
STATUSES = ("ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "n/a")
SUPPORTED = frozenset({"ok", "ok-breaks", "ok-unverified"})
FAILING = frozenset({"mismatch", "fail"})
STAGES = ("", "eager", "capture", "translate", "check", "load", "run", "compare", "process", "skip")
# The dynamic-batch result inside a supported path's result (``dynamic.status``): does the capture hold
# at another batch size? ok: yes; static: only at the traced batch size; fail: the dynamic capture fails
# for another reason; n/a: no batch dimension.
DYNAMIC_STATUSES = ("ok", "static", "fail", "n/a")
