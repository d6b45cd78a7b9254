"""Where a Python source file's module is: its dotted name, and the ``sys.path`` entry it imports from."""

from __future__ import annotations

from pathlib import Path


def module_for_file(path: Path) -> tuple[str, str]:
    """(dotted module name, sys.path entry) for a file, walking up through packages (``__init__.py``
    folders): for ``src/kornia/filters/canny.py``, ``("kornia.filters.canny", "src")``."""
    path = path.resolve()
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").exists() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), str(directory)
