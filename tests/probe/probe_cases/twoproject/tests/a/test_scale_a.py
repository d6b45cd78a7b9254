import torch

from twolib import scale


def test_scale_a():
    assert scale(torch.ones(2, 3)).shape == (2, 3)
