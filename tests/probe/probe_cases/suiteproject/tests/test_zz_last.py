"""Runs last (pytest takes the files in name order): the default dtype it leaves behind would change every
later test's."""

import torch

from suitelib import scale


def test_leaves_float64_as_the_default():
    torch.set_default_dtype(torch.float64)  # and forgets it: discovery restores it when the suite ends
    assert scale(torch.ones(2, 3), 3.0).dtype == torch.float64
