"""Code that runs only while a compiler traces."""

import torch


def negated_for_compilers(x: torch.Tensor) -> torch.Tensor:
    return torch.neg(x)
