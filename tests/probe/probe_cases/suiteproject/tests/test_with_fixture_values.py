"""A test whose fixture's function cannot be inlined in a snippet (it reads a name conftest sets in a loop)."""

import torch

import suitelib


def test_smooth_on_the_fixtures_place(place):
    suitelib.smooth(torch.ones(1, 2, 5, 5, device=place))
