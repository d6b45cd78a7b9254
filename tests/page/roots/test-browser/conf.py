project = "mylib"
extensions = ["sphinx_kexport"]
kexport_package_order = ["mylib.color", "mylib.geometry"]
html_theme = "alabaster"
