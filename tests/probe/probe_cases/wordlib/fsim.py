"""Code after a graph break that torch.compile compiles for the traced batch (as in piq's fsim.py).

``time.perf_counter()`` is a call dynamo does not trace: the rest of each function is a resume function,
compiled on its own for the sizes it first sees, so a new batch size fails one of its guards."""

import time

import torch


def loop_after_break(x):
    y = x * 2
    time.perf_counter()
    return torch.stack([y[i].sum() for i in range(y.shape[0])])  # a guard on y's batch size


def size_after_break(x):
    n = x.shape[0]
    y = x * 2
    time.perf_counter()
    return y + torch.zeros(n, 1, 1)  # n crossed the break as a Python int: a guard n == traced batch


def view_after_break(x):
    n, c = x.shape[0], x.shape[1]
    y = x + 1
    time.perf_counter()
    return y.reshape(n, c, -1).mean(-1)
