"""The five shapes of a branch on tensor values (the compile-first workflow's classes), one function each.

torch.compile(fn, fullgraph=True) fails at the ``if`` of each on torch 2.13 (a branch on tensor values); the
probe records the statement at that line (``where_code``), and the fix classes tell the shapes apart by it.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.shapes"


def value_check(x):
    if (x < 0).any():
        raise ValueError("negative input")
    return x.sqrt()


def early_exit(x):
    for _ in range(3):
        if not (x > 1).any():
            break
        x = x / 2
    return x


def early_return(x):
    if (x > 10).all():
        return None
    return x * 2


def gate(x, keep):
    if keep.sum() < 1:
        return x
    return x * keep


def plain_branch(x):
    if x.mean() > 0.5:
        y = x * 2
    else:
        y = x - 1
    return y


x = torch.rand(2, 3)

CASES = [
    case("value_check", value_check, [x], package=PKG),
    case("early_exit", early_exit, [x * 4], package=PKG),
    case("early_return", early_return, [x], package=PKG),
    case("gate", gate, [x, torch.ones(2, 1)], package=PKG),
    case("plain_branch", plain_branch, [x], package=PKG),
]
