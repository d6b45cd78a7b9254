"""Tests that patch the library with unittest.mock: a call made while a patch is active runs the test's
stand-in, so it is no case (each test's expected yield is in tests/probe/test_probe_suite.py)."""

from unittest import mock

import torch

import suitelib
from suitelib import Gain


def test_a_method_patched_on_the_instance():
    # kornia's TestAugmentationBase2D.test_forward: methods of the module replaced, then the module called
    gain = Gain(3.0)
    with mock.patch.object(gain, "forward", autospec=True) as forward:
        forward.side_effect = lambda x: x
        assert gain(torch.rand(7, 2)).shape == (7, 2)


@mock.patch("suitelib.Box.area", return_value=torch.zeros(1))
def test_a_class_patched_by_a_decorator(area):
    assert suitelib.blend(torch.rand(7, 3), torch.rand(7, 3)).shape == (7, 3)


def test_a_patch_started_then_stopped():
    patcher = mock.patch.object(suitelib, "make_ramp", return_value=torch.zeros(3))
    patcher.start()
    suitelib.scale(torch.rand(7, 4), 4.0)  # while patched: no case
    patcher.stop()
    assert suitelib.blend(torch.rand(7, 5), torch.rand(7, 5), 0.25).shape == (7, 5)  # after: a case
