"""A library one of whose modules lists objects in ``__all__``, one does not import and one must never be
imported (tests/probe/discover/test_probe_unreadable_modules.py): the rest of it is still surveyed."""
