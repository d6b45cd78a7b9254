"""Tests of the module and the plain class; what each test yields: tests/probe/discover/test_probe_suite.py."""

import torch

from suitelib import Box, Gain, scale


def _tripled(x):
    return scale(x, 3.0)


class TestGain:
    def test_forward(self):
        gain = Gain(0.5)
        x = torch.rand(2, 4)
        out = gain(x)
        assert out.shape == x.shape


def test_gain_twice():
    gain = Gain(0.5)
    gain(torch.rand(2, 4))  # the configuration TestGain::test_forward gave a case already
    x = torch.rand(3, 4)
    assert gain(x).shape == (3, 4)  # a new one: the case is this test's second call of Gain


def test_gains_in_a_loop():
    for width in (5,):
        gain = Gain(2.0)
        assert gain(torch.rand(1, width)).shape == (1, width)  # in a loop: its repro cannot be the test's lines


def test_gain_methods():
    gain = Gain(0.5)
    assert gain.doubled(torch.rand(2, 2)).shape == (2, 2)
    assert Gain.unit(torch.rand(3)).shape == (3,)
    assert gain.squared().shape == ()


def test_box_area():
    box = Box(2.0)
    sides = torch.rand(3, 2)
    assert box.area(sides).shape == (3, 2)


def test_scale_through_a_helper():
    assert _tripled(torch.rand(6)).shape == (6,)


def test_spins():
    total = 0
    while True:
        total += 1
