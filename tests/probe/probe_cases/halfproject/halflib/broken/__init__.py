"""A subpackage whose import raises (not an ImportError: pkgutil.walk_packages lets that one through)."""

raise RuntimeError("halflib.broken needs the optional dependency 'fastwidget'")
