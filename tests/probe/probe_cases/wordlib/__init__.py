"""A small library modelled on piq, for the failure wording tests (tests/probe/measure/test_probe_failure_words.py):
a metric whose ``forward`` (base.py) calls a helper in another file (kid.py) that calls an operator without
an ONNX lowering, and functions that torch.compile compiles again at a new batch (fsim.py)."""
