"""A tiny library whose tests script and compile its functions, set the dtype through an autouse fixture and
switch a global mode (tests/probe/discover/test_probe_suite_under_recording.py)."""

import torch

__all__ = ["Gain", "Lazy", "double", "scaled", "settings"]

settings = {"unit": None}  # the library's global mode: scaled works only once a test sets a unit


def double(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) * 2  # reads the global torch: TorchScript resolves it in this module


def scaled(x: torch.Tensor) -> torch.Tensor:
    if settings["unit"] is None:
        raise RuntimeError("no unit set: set modelib.settings['unit'] first")
    return x * settings["unit"]


class Gain(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return double(x) + 1  # scripting the module compiles double too


class Lazy:
    """Loads what it stands for on the first attribute it lacks (kornia's LazyLoader): a look-up by the
    recorder would load it behind the test's back."""

    def __init__(self) -> None:
        self.loaded = False

    def __getattr__(self, name: str):
        self.__dict__["loaded"] = True
        return getattr(torch, name)
