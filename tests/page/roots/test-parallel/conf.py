project = "mylib"
copyright = "2026, the authors"
version = release = "1.0"
extensions = ["sphinx_kexport"]
