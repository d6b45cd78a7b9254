"""Inputs the case modules share: seeded random tensors, the same on every run.

Not a case module (the probe skips files whose name starts with "_"); the
case modules import it from this directory, which the probe and
tools/gen_api_pages.py put on ``sys.path``.
"""

import torch


def rand(*shape, seed=0, lo=0.0, hi=1.0):
    """Uniform in [lo, hi), from a generator of its own: registering a case never moves the global seed."""
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=gen) * (hi - lo) + lo


def rgb(seed=0, batch=1):
    """A small RGB batch, (batch, 3, 32, 32)."""
    return rand(batch, 3, 32, 32, seed=seed)
