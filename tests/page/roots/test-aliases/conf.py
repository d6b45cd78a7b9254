project = "aliaslib"
copyright = "2026, the aliaslib authors"
author = "the aliaslib authors"
version = release = "1.0"
extensions = ["sphinx_kexport"]
