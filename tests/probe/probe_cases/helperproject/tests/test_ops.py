import torch

from helperlib import scale
from helperlib.testing import assert_scales


def test_scale():
    assert scale(torch.ones(4, 5)).shape == (4, 5)


def test_scale_through_the_testing_helper():
    assert_scales(torch.ones(3, 3))
