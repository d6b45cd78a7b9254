"""A tiny library with a test suite and no docstring examples: its survey comes from its tests alone.

tests/probe/discover/test_probe_suite.py says what each of its tests (in tests/) should yield.
"""

import torch

__all__ = ["Box", "Gain", "apply", "blend", "checked", "make_ramp", "scale", "smooth"]


def scale(x, factor=2.0):
    """Multiply by a constant."""
    return x * factor


def smooth(x):
    """Average each value with its neighbours, then double: calls ``scale`` itself (not a case of its own)."""
    return scale((x.roll(1, -1) + x + x.roll(-1, -1)) / 3, 2.0)


def blend(a, b, alpha=0.5):
    """``alpha * a + (1 - alpha) * b``."""
    return alpha * a + (1 - alpha) * b


def checked(x):
    """The identity on 2-D tensors; anything else is refused."""
    if x.dim() != 2:
        raise ValueError(f"checked needs a 2-D tensor, got {x.dim()}-D")
    return x.clone()


def apply(x, fn):
    """``fn(x)``: the test passes a lambda, baked into its case (which then does not pickle)."""
    return fn(x)


def make_ramp(n):
    """Built from Python values only: a case with no tensor input (a graph of constants)."""
    return torch.arange(n, dtype=torch.float32)


class Gain(torch.nn.Module):
    """Multiply by a learnt gain."""

    def __init__(self, gain=1.0):
        super().__init__()
        self.gain = torch.nn.Parameter(torch.tensor(float(gain)))

    def forward(self, x):
        return x * self.gain

    def doubled(self, x):
        """A method of a module besides ``forward``: its calls are cases of ``Gain.doubled``."""
        return x * self.gain * 2

    def squared(self):
        """A method whose only tensor is the module's own gain: its calls are cases with no tensor input."""
        return self.gain * self.gain

    @staticmethod
    def unit(x):
        return x / x.abs().max()


class Box:
    """Boxes of a fixed size; ``area`` scales a tensor of box sides."""

    def __init__(self, side):
        self.side = side

    def area(self, sides):
        return sides * sides * self.side
