"""Four operators, each the only code its case runs of the library."""

from .ops import doubled, halved, negated, shifted

__version__ = "1.0"
__all__ = ["doubled", "halved", "negated", "shifted"]
