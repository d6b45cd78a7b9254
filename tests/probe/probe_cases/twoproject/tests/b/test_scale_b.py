import torch

from twolib import scale


def test_scale_b():
    assert scale(torch.ones(4, 5)).shape == (4, 5)
