project = "featurelib"
extensions = ["sphinx_kexport"]
exclude_patterns = ["_build"]
