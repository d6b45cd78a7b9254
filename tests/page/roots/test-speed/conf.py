project = "speedlib"
copyright = "2026, the speedlib authors"
author = "the speedlib authors"
version = release = "1.0"
extensions = ["sphinx_kexport"]
