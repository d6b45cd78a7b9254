"""Failing cells whose repro needs the probed objects and values, not stand-ins of the same type and shape.

* ``Threshold(0.3)`` is a callable object (not an nn.Module) built with an argument: the class itself
  is not what was probed;
* ``validated_boxes`` refuses invalid boxes eagerly, so random boxes fail before any export (16 values:
  written out exactly);
* ``argmax_with_nan``'s ONNX mismatch needs its NaN where the helper put it (384 values: rebuilt from
  this module's own lines);
* ``looped`` (built in a loop) cannot be rebuilt from the module's top-level lines: the snippet must say so and stop.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.repro_inputs"


class Threshold:
    """A callable transform object, like MONAI's array transforms."""

    def __init__(self, level: float):
        self.level = level

    def __call__(self, x):
        if (x > self.level).any():  # a branch on values: torch.export and ONNX cannot capture it
            return x * 2
        return x


def validated_boxes(boxes):
    if (boxes[:, 2] < boxes[:, 0]).any():  # eager validation, then a branch capture cannot follow
        raise ValueError("boxes must have x2 >= x1")
    return boxes[:, 2:] - boxes[:, :2]


def argmax_with_nan(x):
    return torch.argmax(x.flatten(1), dim=1)  # onnxruntime ignores NaN: a mismatch


def image_with_nan(seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.rand(2, 3, 8, 8, generator=generator)
    x[0, 0, 1, 1] = float("nan")
    return x


boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [20.0, 20.0, 30.0, 30.0], [2.0, 0.5, 12.0, 9.0]])
nan_image = image_with_nan(seed=5)
for level in (0.7,):
    looped = Threshold(level)

CASES = [
    case("Threshold", Threshold(0.3), [torch.rand(2, 3)], package=PKG),
    case("validated_boxes", validated_boxes, [boxes], package=PKG),
    case("argmax_with_nan", argmax_with_nan, [nan_image], package=PKG),
    case("Threshold[looped]", looped, [torch.rand(2, 3)], package=PKG),
]
