"""A library that exports its operator at the top (placelib.blur) as well as where it lives (placelib.nn.blur)."""

from . import nn
from .nn import blur

__all__ = ["blur", "nn"]
