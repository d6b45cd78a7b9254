"""``python -m sphinx_kexport.probe``; see :mod:`sphinx_kexport.probe.cli.main`."""

import sys

from sphinx_kexport.probe.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
