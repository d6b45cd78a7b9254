project = "mylib"
extensions = ["sphinx_kexport"]
copyright = "2026, the authors"
version = release = "1.0"
