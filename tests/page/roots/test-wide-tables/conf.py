project = "graphlib"
extensions = ["sphinx_kexport"]
html_theme = "alabaster"  # Sphinx's default; the browser test builds the other themes too
