import torch

__all__ = ["blur"]


def blur(x):
    return 0.5 * (x + x.roll(1, dims=-1))
