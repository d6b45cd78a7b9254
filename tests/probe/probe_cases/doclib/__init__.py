"""A tiny library nobody wrote probe cases for: its survey comes from its docstring examples alone.

Each docstring example exercises one thing discovery must handle; see
tests/probe/discover/test_probe_docstrings.py for what each should yield.
"""

from .layers import Scaler
from .ops import (blur_then_scale, broken, checked, fetch_weights, jitter, make_ramp, misaligned, mix, refuse, scale,
                  shift, slow)

__all__ = ["Scaler", "blur_then_scale", "broken", "checked", "fetch_weights", "jitter", "make_ramp", "misaligned",
           "mix", "refuse", "scale", "shift", "slow"]
