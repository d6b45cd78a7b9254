"""The metric's module: its forward only calls the helper (as piq's BaseFeatureMetric calls compute_metric)."""

import torch

from .kid import shuffled_mean


class ShuffledMean(torch.nn.Module):
    def forward(self, x):
        return shuffled_mean(x * 2)
