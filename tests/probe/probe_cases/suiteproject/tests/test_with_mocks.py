"""Tests that patch with unittest.mock: a call during which the test's stand-in ran shows the mock, so it is no
case; a call the stand-in stays out of is (what each yields: tests/probe/discover/test_probe_suite.py)."""

from unittest import mock

import torch

import suitelib
from suitelib import Box, Gain


def test_a_function_patched_with_autospec():
    # kornia's TestAugmentationBase2D.test_forward: patch.object(..., autospec=True), then the library called
    with mock.patch.object(suitelib, "scale", autospec=True) as scale:
        scale.side_effect = lambda x, factor=2.0: x
        assert suitelib.smooth(torch.rand(7, 2)).shape == (7, 2)  # smooth calls scale: the mock's result


@mock.patch("suitelib.scale", side_effect=lambda x, factor: x)
def test_a_function_patched_by_a_decorator(scale):
    assert suitelib.smooth(torch.rand(7, 3)).shape == (7, 3)  # smooth calls scale: the mock's result
    assert scale.called


@mock.patch("torch.hub.load_state_dict_from_url")
def test_a_patch_the_call_never_reaches(load):
    # kornia's tests/feature/test_mkd.py patches torch.hub's download for every test; area never downloads
    assert Box(2.0).area(torch.rand(7, 2)).shape == (7, 2)


def test_a_patch_started_then_stopped():
    # a plain function, not a mock, in place of the library's scale: whether it ran cannot be counted
    patcher = mock.patch.object(suitelib, "scale", lambda x, factor=2.0: x)
    patcher.start()
    Gain(2.0).doubled(torch.rand(7, 4))  # while patched: no case
    patcher.stop()
    assert suitelib.blend(torch.rand(7, 5), torch.rand(7, 5), 0.25).shape == (7, 5)  # after: a case
