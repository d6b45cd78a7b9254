"""Three operators; ``blur`` and ``sharpen`` share ``_shared.smooth``, ``invert`` does not."""

from .ops import blur, invert, sharpen, strict_mean

__all__ = ["blur", "invert", "sharpen", "strict_mean"]
