"""A digest of a case's eager outputs, byte for byte: the gate's check that a change kept them identical.

It reads the outputs the comparisons read (``number_outputs.outputs_or_numbers``: every tensor the call returns,
in order, or its numbers where it returns no tensor) and hashes, for each in turn, a tensor's dtype, shape,
layout and raw bytes (a contiguous CPU copy; a sparse tensor by its dense values, so that the same values
stored coalesced or not digest alike: its layout is hashed beside them), a Python number by its type and
``repr``. Nothing is rounded: one bit moved in one element moves the digest.

The same outputs digest alike only on the same kind of machine and torch (kernels differ between CPU
generations and torch releases); the eager reference is computed on one thread (measurement.py), since a
reduction's result depends on how many threads shared it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import torch

from ..cases.layouts import dense, layout_name


def digest(outputs: tuple[Any, ...]) -> str:
    """The SHA-256 (hex) of ``outputs``, eager's reference (tensors and Python numbers)."""
    hashed = hashlib.sha256()
    for value in outputs:
        if isinstance(value, torch.Tensor):
            tensor = value.detach()
            head = f"tensor {tensor.dtype} {tuple(tensor.shape)} {layout_name(tensor)}\n"
            hashed.update(head.encode())
            hashed.update(_raw_bytes(dense(tensor)))
        else:
            hashed.update(f"{type(value).__name__} {value!r}\n".encode())
    return hashed.hexdigest()


def _raw_bytes(tensor: torch.Tensor) -> bytes:
    """The elements' bytes, in row-major order, as the CPU stores them (a conjugate or negative view resolved)."""
    values = tensor.resolve_conj().resolve_neg().cpu().contiguous()
    return values.reshape(-1).view(torch.uint8).numpy().tobytes()
