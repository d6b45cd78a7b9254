"""A stand-in library for the "features" scenario (documented with autodoc)."""
