"""The Sphinx half: the ``export-support`` directive and the page it writes.

Cut one way: ``model/`` computes what the page shows from a snapshot (plain
Python); ``parts/`` turns the model into the page's doctree nodes, one module
per component; ``writers/`` writes those nodes, one module per builder family.
``nodes`` (the node classes), ``builders`` (which builder is which) and
``gc_pause`` are shared by both sides; ``sphinx_env/`` holds the configuration
values, the environment's stores and the static assets; ``extension`` is
``setup()``, wiring it all into Sphinx. The model imports neither parts nor
writers, and the parts never import the writers (``tests/test_design.py``).
"""
