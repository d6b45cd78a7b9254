import torch

import placelib


def test_blur():
    assert placelib.blur(torch.ones(4, 5)).shape == (4, 5)
