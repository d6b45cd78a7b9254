"""The helper two operators share."""

import torch


def smooth(x: torch.Tensor) -> torch.Tensor:
    """A 3-tap average along the last dimension (edges repeated)."""
    padded = torch.cat([x[..., :1], x, x[..., -1:]], dim=-1)
    return (padded[..., :-2] + padded[..., 1:-1] + padded[..., 2:]) / 3
