"""The suite's fixtures: an image, and every test that asks for ``device`` or ``dtype`` runs on each (as
kornia's conftest parametrises them). Like kornia's, it points torch.hub and HF_HOME at a folder of its own
for the session and never puts them back."""

import os

import pytest
import torch

DEVICES = [torch.device("cpu"), torch.device("cuda")]
DTYPES = [torch.float16, torch.float32, torch.float64]


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", DEVICES, ids=[d.type for d in DEVICES])
    if "dtype" in metafunc.fixturenames:
        metafunc.parametrize("dtype", DTYPES, ids=[str(d).removeprefix("torch.") for d in DTYPES])


def pytest_sessionstart(session):
    torch.hub.set_dir("weights/")
    os.environ["HF_HOME"] = "weights/"


def _ramp(n):
    return torch.linspace(0, 1, n)


@pytest.fixture
def image():
    return _ramp(8).repeat(1, 3, 8, 1)


# The places a run may use, set in a loop (as a plugin might set them): no snippet can slice these lines, so a
# repro of a test asking for ``place`` writes out the value the fixture gave instead of the fixture's source.
for _kind in ("cpu",):
    globals()["PLACE_" + _kind.upper()] = torch.device(_kind)


@pytest.fixture
def place():
    return PLACE_CPU  # noqa: F821 (set in the loop above)
