"""A test that switches the library's global mode for its own run (e3nn's set_optimization_defaults)."""

import pytest
import torch

import modelib


@pytest.fixture
def unit():
    modelib.settings["unit"] = 2.0
    yield 2.0
    modelib.settings["unit"] = None  # the library's default again once the test ends


def test_scaled_in_a_unit(unit):
    x = torch.ones(2, 2)
    assert torch.equal(modelib.scaled(x), x * unit)
    assert modelib.scaled(torch.ones(3)).shape == (3,)  # another configuration, which fails the same way: said once
