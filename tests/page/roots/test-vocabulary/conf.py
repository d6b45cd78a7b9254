project = "vocablib"
copyright = "2026, the vocablib authors"
author = "the vocablib authors"
version = release = "1.0"
extensions = ["sphinx_kexport"]
