"""Functions whose torch.compile behaviour on torch 2.13 is known from plain scripts.

Checked with ``torch.compile(fn)`` and ``torch._dynamo.utils.counters`` outside the probe:
``item_in_try`` makes dynamo record one unsupported call and compile no graph at all (explain()
reports 0 graphs and -1 breaks), ``calls_a_builtin`` calls a builtin dynamo does not trace (explain()
reports 1 graph and 0 breaks: a skipped function, no break, though fullgraph=True fails at it), and
``deepcopy_then_scale`` breaks at copy.deepcopy, which explain() does not list. ``scale_by_max`` reads a
scalar back with ``.item()``: the default compile breaks there (2 graphs, 1 break), while
``torch.compile(fn, fullgraph=True)`` compiles it as one graph with inductor and matches eager, and so does
the default compile under ``torch._dynamo.config.capture_scalar_outputs = True`` (1 graph, no break);
``item_in_try`` is the same under fullgraph=True and that setting.
"""

from __future__ import annotations

import copy
import time

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.truth"


def clean(x):
    return torch.sigmoid(x) * 2.0 + x


def tensor_if(x):
    if x.sum() > 0:  # a branch on tensor values
        return x * 2
    return x - 1


def item_in_try(x):
    try:
        scale = x.max().item()  # the break: dynamo cannot resume inside the try block
    except RuntimeError:
        scale = 1.0
    return x * scale


def scale_by_max(x):
    return x / x.abs().max().item()  # a scalar read back: a symbol under fullgraph=True, a break by default


def calls_a_builtin(x):
    time.perf_counter()  # a builtin dynamo does not trace
    return x * 3


def deepcopy_then_scale(x):
    return copy.deepcopy(x) * 2


def needs_a_missing_module(x):
    import probe_cases_not_installed  # noqa: F401  (as a broken install would fail)

    return x


x = torch.rand(2, 3, 4)

CASES = [
    case("clean", clean, [x], package=PKG),
    case("tensor_if", tensor_if, [x], package=PKG),
    case("item_in_try", item_in_try, [x], package=PKG),
    case("scale_by_max", scale_by_max, [x], package=PKG),
    case("calls_a_builtin", calls_a_builtin, [x], package=PKG),
    case("deepcopy_then_scale", deepcopy_then_scale, [x], package=PKG),
    case("needs_a_missing_module", needs_a_missing_module, [x], package=PKG),
]
