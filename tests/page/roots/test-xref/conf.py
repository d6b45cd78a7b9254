project = "mylib"
copyright = "2026, the authors"
version = release = "1.0"
extensions = ["sphinx_kexport", "sphinx.ext.intersphinx"]
# The tests point intersphinx_mapping / kexport_inventories at an objects.inv
# written by a real build of tests/page/roots/test-xref-lib.
