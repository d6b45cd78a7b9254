"""Tests of sparselib; what each yields is in tests/probe/measure/test_probe_sparse.py."""

import torch

from sparselib import degree, graph_sums, propagate, self_loops


def test_propagate_a_sparse_adjacency():
    adj = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), torch.ones(4), (3, 3))
    out = propagate(adj, torch.ones(3, 4))
    assert out.shape == (3, 4)


def test_degree_of_a_csr_adjacency():
    adj = torch.tensor([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]]).to_sparse_csr()
    assert degree(adj).tolist() == [2.0, 1.0, 1.0]


def test_self_loops():
    out = self_loops(torch.tensor([[0., 1.], [1., 0.]]).to_sparse())
    assert out.to_dense().trace().item() == 2.0


def test_graph_sums_of_a_nested_batch():
    batch = torch.nested.nested_tensor([torch.ones(2), torch.ones(3), torch.ones(1)])
    assert graph_sums(batch).tolist() == [2.0, 3.0, 1.0]
