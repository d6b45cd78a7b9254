"""Calls that return Python numbers and no tensor, as a graph library's helpers do (issue 60: a node count, a
shape). Checked with plain scripts on torch 2.13 (CPU), a module whose forward returns the number:

* ``num_edges`` (``edge_index.shape[1]``): torch.export and torch.compile return it; the ONNX exporter fails
  to translate the constant output ("'int' object has no attribute 'name'");
* ``node_count`` (``int(edge_index.max()) + 1``, read from the data): the ONNX exporter writes it as a 0-d
  output that onnxruntime runs; torch.export fails (GuardOnDataDependentSymNode); torch.compile returns it;
* ``shape_of`` (``tuple(x.shape)``): a tuple of numbers, as ``num_edges``;
* ``describe`` returns a string: nothing any path captures.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.numbers"


def num_edges(edge_index):
    return edge_index.shape[1]


def node_count(edge_index):
    return int(edge_index.max()) + 1


def shape_of(x):
    return tuple(x.shape)


def describe(x):
    return f"a tensor of {x.dim()} dimensions"


edges = torch.stack([torch.arange(16) % 5, (torch.arange(16) * 3 + 1) % 5])
CASES = [
    case("num_edges", num_edges, [edges], package=PKG, batch=None),
    case("node_count", node_count, [edges], package=PKG, batch=None),
    case("shape_of", shape_of, [torch.ones(3, 4)], package=PKG, batch=None),
    case("describe", describe, [torch.ones(3, 4)], package=PKG, batch=None),
]
