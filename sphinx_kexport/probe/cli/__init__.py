"""``python -m sphinx_kexport.probe``: one module per subcommand around :func:`..survey.run_survey`."""
