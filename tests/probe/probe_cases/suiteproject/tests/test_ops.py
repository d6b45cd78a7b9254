"""Tests of the functions; each test's expected yield is in tests/probe/discover/test_probe_suite.py."""

import urllib.request

import pytest
import numpy
import torch

import suitelib
from suitelib import blend, checked, scale

SIZE = 4


@pytest.mark.parametrize("shape", [(2, 3), (1, 3, SIZE, SIZE), (SIZE,), (5, 5)])
def test_scale_shapes(shape):
    x = torch.rand(*shape)
    assert scale(x, 3.0).shape == x.shape


def test_scale_twice_the_same_way():
    x = torch.rand(2, 3)
    y = scale(x, factor=3.0)
    z = scale(torch.rand(2, 3), factor=3.0)
    assert y.shape == z.shape


def test_smooth(image):
    out = suitelib.smooth(image)
    assert out.shape == image.shape


def test_checked_refuses_1d():
    x = torch.ones(3)
    with pytest.raises(ValueError):
        y = scale(x, 0.5)
        checked(y)
    pytest.raises(ValueError, lambda: checked(torch.ones(4)))
    ok = checked(torch.ones(2, 2))
    assert ok.shape == (2, 2)


def test_blend(device, dtype):
    a = torch.zeros(2, 2, device=device, dtype=dtype)
    b = torch.ones(2, 2, device=device, dtype=dtype)
    assert blend(a, b, alpha=0.25).dtype == dtype


def test_apply_a_lambda():
    x = torch.rand(3)
    assert torch.equal(suitelib.apply(x, lambda t: t * 2), x * 2)


def test_ramp_from_python_values():
    assert suitelib.make_ramp(4).shape == (4,)


def test_ramp_of_a_numpy_length():
    assert suitelib.make_ramp(numpy.int64(3)).shape == (3,)  # neither a tensor nor a plain Python value


def test_that_fails():
    out = scale(torch.ones(3, 3), 2.0)
    assert out.sum() == 0, "wrong on purpose"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_on_cuda():
    assert scale(torch.ones(2, 2, device="cuda")).is_cuda


def test_downloads_weights():
    with urllib.request.urlopen("https://example.invalid/weights.pt") as response:
        weights = float(response.read())
    assert scale(torch.ones(2), weights).shape == (2,)


@pytest.fixture
def offset(request):
    return request.param + 1


@pytest.mark.parametrize("offset", [1], indirect=True)
def test_blend_an_indirect_parameter(offset):
    a = torch.full((2, 2), float(offset))  # 2.0: the snippet cannot say `offset = 1`
    assert blend(a, a, alpha=0.5).sum() == 8.0


def test_writes_a_file_by_a_relative_name():
    with open("written-by-a-test.txt", "w") as out:  # into the working directory: discovery gives it a scratch one
        out.write(str(scale(torch.ones(2, 3), 3.0).sum().item()))
