"""Random operators whose output size is itself drawn, as a graph library's are (issue 60: an edge dropout, a
random graph generator), and one whose size is fixed. Checked with plain scripts on torch 2.13 (CPU), each call
after ``torch.manual_seed`` as the probe seeds it: eager and ``torch.compile`` under inductor's
``fallback_random`` draw the same numbers, the same sizes included; without it the compiled ``drop_rows``
keeps another number of rows; onnxruntime draws from its own generator.
"""

from __future__ import annotations

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.random_sizes"


def drop_edges(edge_index):
    # an edge dropout: each edge kept with probability 0.5, so the number of edges is drawn
    return edge_index[:, torch.rand(edge_index.shape[1]) >= 0.5]


def random_graph(features):
    # an Erdos-Renyi graph over the nodes: its edge count is drawn
    n = features.shape[0]
    return torch.nonzero(torch.rand(n, n) < 0.3).t()


def drop_rows(x):
    # a row dropout along the batch: at every batch size the kept count is drawn
    return x[torch.rand(x.shape[0]) >= 0.5]


edges = torch.stack([torch.arange(16) % 5, (torch.arange(16) * 3 + 1) % 5])
features = torch.linspace(-1.0, 1.0, 24).reshape(6, 4)
CASES = [
    case("drop_edges[random]", drop_edges, [edges], package=PKG, check=False, batch=None),
    case("random_graph[random]", random_graph, [features], package=PKG, check=False, batch=None),
    case("drop_rows[random]", drop_rows, [features], package=PKG, check=False),
]
