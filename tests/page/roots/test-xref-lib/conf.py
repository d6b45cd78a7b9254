project = "extlib"
copyright = "2026, the authors"
version = release = "2.0"
