"""A stand-in library for the "beyond" scenario (documented with autodoc)."""
