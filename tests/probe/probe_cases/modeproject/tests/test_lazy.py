"""A test of an object that loads on its first unknown attribute (kornia's test_lazyloader)."""

import modelib


def test_built_lazy_object_is_not_loaded():
    lazy = modelib.Lazy()
    assert not lazy.loaded  # nothing but the test's own look-ups may load it
    assert lazy.float32 is not None
    assert lazy.loaded
