"""Shared pytest configuration: Sphinx's own testing fixtures (app, make_app, rootdir)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("sphinx.testing.fixtures",)

REPO = Path(__file__).resolve().parent.parent
ROOTS = Path(__file__).resolve().parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Scenario projects live in tests/roots/test-<name>/ (sphinx.testing convention)."""
    return ROOTS
