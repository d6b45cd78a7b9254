"""A tiny graph library whose functions take and return sparse COO and CSR tensors (issue 60).

Each docstring example shows one way a graph library hands sparse tensors around; tests/ passes a sparse
input from a test. tests/probe/measure/test_probe_sparse.py says what each yields.
"""

import torch


def adjacency(edges, num_nodes: int = 4):
    """The adjacency matrix of an edge list, as a sparse COO tensor: a sparse output.

    Examples:
        >>> edges = torch.tensor([[0, 1, 2], [1, 2, 3]])
        >>> adjacency(edges, 4).to_dense().sum().item()
        3.0
    """
    values = torch.ones(edges.shape[1])
    return torch.sparse_coo_tensor(edges, values, (num_nodes, num_nodes)).coalesce()


def propagate(adj, x):
    """One message-passing step: sparse adjacency @ dense features (a sparse input, a dense output).

    Examples:
        >>> adj = torch.tensor([[0., 1., 0.], [1., 0., 1.], [0., 1., 0.]]).to_sparse()
        >>> propagate(adj, torch.ones(3, 2)).shape
        torch.Size([3, 2])
    """
    return torch.sparse.mm(adj, x)


def normalized(x):
    """Row-normalise a dense matrix and return it as a sparse CSR tensor: a CSR output.

    Examples:
        >>> normalized(torch.tensor([[1., 0., 1.], [0., 2., 0.]])).layout
        torch.sparse_csr
    """
    return (x / x.sum(dim=1, keepdim=True)).to_sparse_csr()


def degree(adj):
    """The degree of each node of a sparse CSR adjacency: a CSR input, a dense output.

    Examples:
        >>> degree(torch.tensor([[0., 1.], [1., 1.]]).to_sparse_csr())
        tensor([1., 2.])
    """
    return adj.to_dense().sum(dim=1)


def self_loops(adj):
    """Add the identity to a sparse COO adjacency: sparse in, sparse out.

    Examples:
        >>> self_loops(torch.zeros(3, 3).to_sparse()).to_dense().trace().item()
        3.0
    """
    eye = torch.eye(adj.shape[0]).to_sparse()
    return (adj + eye).coalesce()


def dense_features(x):
    """A plain dense function next to the sparse ones: its case must survive whatever the others do.

    Examples:
        >>> dense_features(torch.ones(2, 2)).shape
        torch.Size([2, 2])
    """
    return x * 2.0


def graph_sums(features):
    """The feature sum of each graph of a batch given as a nested tensor (one row per graph, of its own length):
    an input the probe cannot describe (torch gives no sizes of a nested tensor), left out with why.

    Examples:
        >>> graph_sums(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]))
        tensor([2., 3.])
    """
    return torch.stack([graph.sum() for graph in features.unbind()])
