"""Sparse tensors (COO, CSR, CSC, BSR, BSC) as the probe reads them: their layout's name, their parts, their
dense values and the method that makes them from dense values again.

A graph library hands sparse adjacency matrices in and out. Such a tensor has no strides, no contiguous
form and no numpy view: the fingerprint hashes its parts (:func:`parts`), the comparison and the ONNX feed
read its dense values (:func:`dense`), and a repro writes its dense values followed by the conversion
(:func:`from_dense_suffix`). A strided tensor is left as it is everywhere: its records stay as they were.
"""

from __future__ import annotations

from typing import Any

STRIDED = "strided"
SPARSE = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")  # torch's sparse layouts


def layout_name(tensor: Any) -> str:
    """"strided" for a dense tensor, else torch's name of its layout: "sparse_coo", "sparse_csr", ..."""
    layout = getattr(tensor, "layout", None)
    return STRIDED if layout is None else str(layout).removeprefix("torch.")


def layout_words(name: str) -> str:
    """A layout's name for people: "dense", "sparse COO", "sparse CSR" ..."""
    return "dense" if name == STRIDED else "sparse " + name.removeprefix("sparse_").upper()


def is_sparse(tensor: Any) -> bool:
    return layout_name(tensor) in SPARSE


def dense(tensor: Any) -> Any:
    """The tensor with its values in the strided layout (itself when it is strided)."""
    return tensor.to_dense() if is_sparse(tensor) else tensor


def parts(tensor: Any) -> tuple[Any, ...]:
    """The strided tensors a sparse tensor is made of, as stored (a COO tensor's indices and values, a CSR
    tensor's row pointers, column indices and values ...): uncoalesced COO entries stay as they are."""
    layout = layout_name(tensor)
    if layout == "sparse_coo":
        return tensor._indices(), tensor._values()
    if layout in ("sparse_csr", "sparse_bsr"):
        return tensor.crow_indices(), tensor.col_indices(), tensor.values()
    if layout in ("sparse_csc", "sparse_bsc"):
        return tensor.ccol_indices(), tensor.row_indices(), tensor.values()
    raise ValueError(f"no parts known for a tensor of layout {layout}")


def from_dense_suffix(tensor: Any) -> str:
    """The method call that turns the tensor's dense values into a tensor of its layout: ``.to_sparse()``,
    ``.to_sparse(1)`` (a hybrid COO tensor), ``.to_sparse_csr()``, ``.to_sparse_bsr((2, 2))``; "" when strided."""
    layout = layout_name(tensor)
    if layout == STRIDED:
        return ""
    if layout == "sparse_coo":
        sparse_dim = tensor.sparse_dim()
        return ".to_sparse()" if sparse_dim == tensor.dim() else f".to_sparse({sparse_dim})"
    dense_dim = tensor.dense_dim()
    if layout in ("sparse_bsr", "sparse_bsc"):
        values = tensor.values()
        block = tuple(int(d) for d in values.shape[values.dim() - dense_dim - 2:values.dim() - dense_dim])
        return f".to_{layout}({block}" + (f", {dense_dim})" if dense_dim else ")")
    return f".to_{layout}(" + (f"{dense_dim})" if dense_dim else ")")
