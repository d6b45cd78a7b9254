"""A library with an operator and, beside it, the testing helpers its own tests use (helperlib.testing)."""

from .ops import scale

__all__ = ["scale"]
