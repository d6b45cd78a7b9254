"""Two operators: a sum over many numbers (its last bit depends on how many threads add them) and a random one."""

import torch


def total(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).sum()


def jitter(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + torch.randn_like(x)
