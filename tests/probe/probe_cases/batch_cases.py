"""Operators whose batch behaviour is known, for the dynamic-batch pass.

Each comment says what the probe finds with torch 2.13 / onnxscript 0.7 /
onnxruntime 1.32 (observed with plain scripts first); the tests assert on the
snapshot the real command writes, not on these comments.
"""

from __future__ import annotations

import kornia
import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.batch"


def batch_agnostic(x):
    # holds at any batch size on every path
    return x * 2 + 1


def loop_over_batch(x):
    # a Python loop over the batch: every tracer unrolls it for the traced batch size
    outs = []
    for i in range(x.shape[0]):
        outs.append(x[i] * (i + 1))
    return torch.stack(outs)


def branch_on_batch(x):
    # a branch on the batch size: the tracers keep the branch taken at the traced size
    if x.shape[0] == 2:
        return x * 2
    return x - 1


def batch_as_number(x):
    # int() of the batch size: torch.export (non-strict) specialises it; dynamo keeps it symbolic, so
    # torch.compile holds, and so does ONNX (the exporter retries with dynamo after the non-strict violation)
    n = int(x.shape[0])
    return x + torch.full((n, 1, 1, 1), float(n))


def loop_after_graph_break(x):
    # the loop follows a graph break that fullgraph=True fails at (a branch on tensor values; an .item() it would
    # capture as a symbol): the default compile compiles the rest for batch 2 and recompiles at 3
    y = x * 2
    if y.max() > 100:
        y = y - 1
    return torch.stack([y[i] + 1 for i in range(y.shape[0])])


def singular_values(x):
    # no ONNX lowering: a path that does not work statically gets no dynamic-batch result
    return torch.linalg.svd(x)[1]


def pyramid_scale(levels, scales):
    # containers: a dict of levels (batch along dim 0 of each) and a tuple with a scalar; batch-agnostic
    return {name: level * scales[0] + scales[1].sum() for name, level in levels.items()}


def loop_over_list_batch(pair):
    # containers: a list of two tensors, a Python loop over the batch of the first
    a, b = pair
    return torch.stack([a[i] * b[i].mean() for i in range(a.shape[0])])


def per_sample_gate(x, keep):
    # a per-sample gate of rank 1, like kornia's batch_prob (its 3D augmentations branch exactly so): grown
    # with the batch the shapes agree and every path holds; left at batch 1 the other branch tests values
    if keep.shape[0] == x.shape[0]:
        return torch.where(keep.view(-1, 1, 1, 1), x * 2, x)
    return x * 2 if bool(keep.any()) else x


def scale_by(x, factor):
    # a one-element factor broadcast over the width: grown to the batch it no longer broadcasts, so the
    # pass holds it as given, and every path holds
    return x * factor


image = torch.linspace(0, 1, 3 * 8 * 8).reshape(1, 3, 8, 8)
CASES = [
    case("batch_agnostic", batch_agnostic, [image], package=PKG),
    case("batch_agnostic[batch 3]", batch_agnostic, [torch.rand(3, 5)], package=PKG),
    case("gaussian_blur2d", kornia.filters.gaussian_blur2d, [image],
         {"kernel_size": (3, 3), "sigma": (1.0, 1.0)}, package=PKG),
    case("loop_over_batch", loop_over_batch, [image], package=PKG),
    case("branch_on_batch", branch_on_batch, [image], package=PKG),
    case("batch_as_number", batch_as_number, [image], package=PKG),
    case("loop_after_graph_break", loop_after_graph_break, [image], package=PKG),
    case("loop_over_batch[opted out]", loop_over_batch, [image], package=PKG, batch=None),
    case("singular_values", singular_values, [torch.rand(1, 4, 4)], package=PKG),
    case("pyramid_scale[dict]", pyramid_scale,
         [{"p3": image, "p4": torch.rand(1, 3, 4, 4)}, (torch.tensor(2.0), torch.rand(3))], package=PKG),
    case("loop_over_list_batch[list]", loop_over_list_batch, [[image, torch.rand(1, 3, 4, 4)]], package=PKG),
    case("per_sample_gate", per_sample_gate, [image, torch.tensor([True])], package=PKG),
    case("scale_by", scale_by, [image, torch.tensor([0.5])], package=PKG),
    # the gate baked (kornia's `aug(input, params=aug._params)` examples): the pass cannot grow it
    case("per_sample_gate[baked]", per_sample_gate, [image], {"keep": torch.tensor([True])}, package=PKG),
]
