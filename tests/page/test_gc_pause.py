"""``gc_pause.paused``: the garbage collector is off inside and as it was after, whatever happens."""

from __future__ import annotations

import gc

import pytest

from sphinx_kexport.page import gc_pause


@pytest.fixture(autouse=True)
def restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_paused_and_restored_even_on_error():
    gc.enable()
    with pytest.raises(ValueError):
        with gc_pause.paused():
            assert not gc.isenabled()
            with gc_pause.paused():  # nested: the inner block leaves it off for the outer one
                assert not gc.isenabled()
            assert not gc.isenabled()
            raise ValueError
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    with gc_pause.paused():
        pass
    assert not gc.isenabled()
