project = "mylib"
copyright = "2026, the mylib authors"
author = "the mylib authors"
version = release = "1.2.3"
extensions = ["sphinx_kexport"]
kexport_package_order = ["mylib.geometry"]
kexport_section_titles = {"mylib.geometry": {"transform": "Transforms", "": "Core"}}
