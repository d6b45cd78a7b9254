"""A tiny library that exports one function under two public names: ``aliaslib.smooth`` (the package
re-exports it) and ``aliaslib.filters.smooth`` (where it is defined). The probe must see one object."""

from .filters import smooth

__all__ = ["smooth"]
