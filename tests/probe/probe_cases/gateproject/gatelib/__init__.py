"""Three operators that share ``_common.normalize``, one that does not, and a module built by a helper."""

from .modules import Gain
from .ops import brighten, contrast, darken, negate

__all__ = ["Gain", "brighten", "contrast", "darken", "negate"]
