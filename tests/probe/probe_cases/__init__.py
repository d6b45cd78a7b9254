"""Case modules for the probe tests; also the "surveyed library" of those tests (``library = "probe_cases"``),
so that ``where`` frames point into these files."""

__version__ = "0.0.1"
