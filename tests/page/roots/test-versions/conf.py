project = "verlib"
copyright = "2026, the verlib authors"
author = "the verlib authors"
version = release = "3.0.0"
extensions = ["sphinx_kexport"]
kexport_package_order = ["verlib.color", "verlib.geometry"]
