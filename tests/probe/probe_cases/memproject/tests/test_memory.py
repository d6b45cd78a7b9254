import os

import torch

import memlib

LARGE = 80 * 2**20  # elements: 320 MB in float32, 640 MB in float64


def test_fails_holding_a_large_tensor():
    large = torch.ones(LARGE)
    assert memlib.total(large[:4]) == 4
    assert large.sum() < 0, "fails on purpose while its frame holds `large`"


def test_small_after_it():
    assert memlib.total(torch.ones(3, 2)) == 6


def test_says_its_dtype():
    with open(os.environ["MEMLIB_RAN"], "a", encoding="utf-8") as ran:  # which dtypes the body ran in
        ran.write(f"{torch.get_default_dtype()}\n")
    assert memlib.total(torch.ones(2, 2)) == 4
