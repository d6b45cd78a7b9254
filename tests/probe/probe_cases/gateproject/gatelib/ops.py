"""The operators."""

import torch

from ._common import normalize
from ._compiled import negated_for_compilers


def brighten(x: torch.Tensor) -> torch.Tensor:
    return normalize(x) + 0.1


def darken(x: torch.Tensor) -> torch.Tensor:
    return normalize(x) - 0.1


def contrast(x: torch.Tensor) -> torch.Tensor:
    return normalize(x) * 1.5


def negate(x: torch.Tensor) -> torch.Tensor:
    if torch.compiler.is_compiling():  # only torch.export, the ONNX exporter and dynamo take this branch
        return negated_for_compilers(x)
    return -x
