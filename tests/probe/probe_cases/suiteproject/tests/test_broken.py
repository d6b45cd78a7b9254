"""A test file that does not import."""

from suitelib import not_there

MISSING = not_there


def test_never_runs():
    pass
