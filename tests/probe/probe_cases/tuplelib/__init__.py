"""A library holding a tuple subclass built from other arguments than its items, as e3nn's ``SphericalTensor(lmax,
p_val, p_arg)`` is, and an example whose input depends on what ran before it in the process, as e3nn's
``with_peaks_at`` does through ``torch.linalg.lstsq`` (whose last bits follow where its buffers lie)."""

import torch

__all__ = ["Grid"]

_RUNS = [0]  # how often peaks ran in this process: what the process ran before moves its last bits


class Grid(tuple):
    """Points 0..size-1, with a scale."""

    def __new__(cls, size: int, scale: float):
        grid = super().__new__(cls, tuple(range(size)))
        grid.scale = scale
        return grid

    def peaks(self) -> torch.Tensor:
        """A signal on the grid.

        >>> g = Grid(3, 2.0)
        >>> x = g.peaks()
        >>> g.apply(x).shape
        torch.Size([3])
        """
        _RUNS[0] += 1
        return torch.full((len(self),), self.scale) + _RUNS[0] * 1e-3

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale
