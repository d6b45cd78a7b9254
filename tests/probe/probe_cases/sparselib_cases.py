"""The survey of tests/probe_cases/sparseproject (a graph library handing sparse COO and CSR tensors around): two
hand-written cases with sparse inputs (their repro is written from the tensors), then its docstring examples and
its tests."""

import sys
from pathlib import Path

import torch

from sphinx_kexport.probe import case, cases_from_docstrings, cases_from_tests

PROJECT = Path(__file__).resolve().parent / "sparseproject"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the library is not installed: its folder is on the path, as its tests expect

import sparselib  # noqa: E402

RING = torch.zeros(20, 20)  # a ring of 20 nodes: 400 values, too many to write, but 40 edges are not
for node in range(20):
    RING[node, (node + 1) % 20] = RING[(node + 1) % 20, node] = 0.5

HAND = [case("propagate[ring]", sparselib.propagate, [RING.to_sparse(), torch.ones(20, 2)], package="sparselib"),
        case("degree[csr]", sparselib.degree, [torch.tensor([[0., 2., 0.5, 0.], [3., 0., 0., 1.], [0., 0., 0., 0.],
                                                              [0., 1., 0., 0.]]).to_sparse_csr()], package="sparselib")]

CASES = HAND + cases_from_docstrings("sparselib", time_limit=10) + cases_from_tests("sparselib", PROJECT / "tests",
                                                                                    time_limit=10)
