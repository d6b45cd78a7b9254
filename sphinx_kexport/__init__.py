"""sphinx-kexport: an export-support page for PyTorch libraries.

``extensions = ["sphinx_kexport"]`` in ``conf.py`` adds the
``.. export-support::`` directive. Rendering never imports torch; the probe
(``python -m sphinx_kexport.probe``) is a separate, optional part.
"""

from __future__ import annotations

__version__ = "0.1.0"


def setup(app):  # pragma: no cover - thin shim, exercised by every sphinx test
    from .page.extension import setup as _setup

    return _setup(app)
