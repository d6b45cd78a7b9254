"""sphinx-kexport: an export-support page for PyTorch libraries.

``extensions = ["sphinx_kexport"]`` in ``conf.py`` adds the
``.. export-support::`` directive. Rendering never imports torch; the probe
(``python -m sphinx_kexport.probe``) is a separate, optional part.
"""

from __future__ import annotations

from ._version import __version__

__all__ = ["__version__", "setup"]


def setup(app):  # pragma: no cover - thin shim, exercised by every sphinx test
    from .page.extension import setup as _setup

    return _setup(app)
