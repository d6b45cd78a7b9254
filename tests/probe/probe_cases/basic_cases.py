"""Small real torch functions that drive the probe through every status and every stage.

Each function is what a library operator could plausibly do; the comment says
what the probe should find with torch 2.13 / onnxscript 0.7 / onnxruntime 1.32.
The tests assert on the snapshot the real command writes, not on these comments.
"""

from __future__ import annotations

import ctypes
import os

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.basic"


def plain_ok(x):
    # everything supports this
    return torch.sigmoid(x) * 2.0 + x


def item_readback(x):
    # dynamo breaks the graph at .item(); export and ONNX trace it as a symbolic float
    return x * x.max().item()


def data_dependent_branch(x):
    # a Python `if` on tensor values: export and ONNX cannot capture it; dynamo breaks the graph
    if x.sum() > 0:
        return x * 2
    return x - 1


def value_dependent_shape(x):
    # boolean indexing: the output shape depends on the values
    return x[x > 0.5] * 2


def singular_values(x):
    # no ONNX lowering for torch.linalg.svd
    return torch.linalg.svd(x)[1]


def argmax_with_nan(x):
    # onnxruntime's ArgMax ignores NaN where torch returns the NaN's index: a real mismatch
    return torch.argmax(x.flatten(1), dim=1)


def erf_float64(x):
    # exports fine, but onnxruntime has no float64 Erf kernel: the session does not load
    return torch.erf(x.double())


def pool_ceil_mode(x):
    # torch drops a last pooling window that would start in the padding; ONNX's shape inference
    # keeps it, so onnx.checker(full_check=True) rejects the shape the exporter recorded
    return torch.nn.functional.max_pool2d(x, 2, 2, padding=1, ceil_mode=True)


def row_of_broadcast(x):
    # torch keeps the expand as a view and reads one row; ONNX Expand materialises all 2**40 rows,
    # so onnxruntime fails at run time when it allocates the buffer
    return x.expand(2**40, -1)[7] + 1


def add_noise(x):
    # random operator: values cannot be compared
    return x + torch.rand_like(x)


def seeded_noise(x):
    # a torch.Generator inside the graph: the ONNX exporter cannot represent it
    generator = torch.Generator().manual_seed(0)
    return x + torch.rand(x.shape, generator=generator)


def wrong_shapes(x, y):
    # the registered inputs do not fit: eager itself fails
    return x @ y


def count_bright_pixels(x):
    # returns a Python int, not a tensor: compared where a path captures it (issue 60), not probed elsewhere
    return int((x > 0.5).sum())


def read_null_pointer(x):
    # a native crash in the operator (SIGSEGV)
    ctypes.string_at(0)
    return x


def abort_under_dynamo(x):
    # crashes (SIGABRT) only while dynamo traces it: ONNX and torch.export are measured, compile is lost
    if torch.compiler.is_dynamo_compiling():
        os.abort()
    return x + 1


class Scale(torch.nn.Module):
    """A module target with a buffer, called through a method."""

    def __init__(self, factor: float = 3.0):
        super().__init__()
        self.register_buffer("factor", torch.tensor(factor))

    def forward(self, x):
        return x * self.factor

    def inverse(self, x):
        return x / self.factor


x2d = torch.rand(2, 3, 4, 4)
nan_input = torch.rand(2, 3, 4, 4)
nan_input[0, 0, 1, 1] = float("nan")

CASES = [
    case("plain_ok", plain_ok, [x2d], package=PKG, section="basic"),
    case("scale.inverse[module]", Scale(2.0), [x2d], package=PKG, section="basic", method="inverse"),
    case("clamp[kwargs]", torch.clamp, [x2d], {"min": 0.2, "max": 0.8}, package=PKG, section="basic"),
    case("item_readback", item_readback, [x2d], package=PKG, section="breaks"),
    case("data_dependent_branch", data_dependent_branch, [x2d], package=PKG, section="breaks"),
    case("value_dependent_shape", value_dependent_shape, [x2d], package=PKG, section="breaks"),
    case("singular_values", singular_values, [torch.rand(4, 4)], package=PKG, section="onnx"),
    case("argmax_with_nan", argmax_with_nan, [nan_input], package=PKG, section="onnx"),
    case("erf_float64", erf_float64, [x2d], package=PKG, section="onnx"),
    case("pool_ceil_mode", pool_ceil_mode, [torch.rand(1, 3, 5, 5)], package=PKG, section="onnx"),
    case("row_of_broadcast", row_of_broadcast, [torch.rand(1, 64)], package=PKG, section="onnx"),
    case("add_noise[random]", add_noise, [x2d], package=PKG, section="random", check=False),
    case("seeded_noise[random]", seeded_noise, [x2d], package=PKG, section="random", check=False),
    case("needs_weights", None, [], package=PKG, section="skip", skip="needs pretrained weights (not downloaded)"),
    case("wrong_shapes", wrong_shapes, [torch.rand(2, 3), torch.rand(4, 5)], package=PKG, section="eager"),
    case("count_bright_pixels", count_bright_pixels, [x2d], package=PKG, section="eager"),
    case("read_null_pointer", read_null_pointer, [x2d], package=PKG, section="crash"),
    case("abort_under_dynamo", abort_under_dynamo, [x2d], package=PKG, section="crash"),
]
