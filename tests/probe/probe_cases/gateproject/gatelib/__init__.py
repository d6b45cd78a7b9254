"""Three operators that share ``_common.normalize``, one that does not."""

from .ops import brighten, contrast, darken, negate

__all__ = ["brighten", "contrast", "darken", "negate"]
