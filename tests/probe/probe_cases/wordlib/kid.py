"""The helper that makes the failing call (as piq's kid.py calls torch.randperm)."""

import torch


def shuffled_mean(x):
    order = torch.randperm(x.shape[0])  # no ONNX lowering for torch.randperm (torch 2.13, onnxscript)
    return x[order].mean(0)
