"""A fresh copy of a module that shares a large module's parameters instead of duplicating them.

The probe copies a case's module before each path (and discovery copies it when a
call is recorded, and for each randomness check), so that a forward that changes its
own state cannot leak it into the next run. What a forward changes is its buffers
(running statistics, caches) and Python attributes; the probe runs every call under
``torch.no_grad()``, where parameters are not updated. So the copy of a module whose
weights exceed :data:`SHARE_ABOVE` gets its own buffers and attributes but the same
parameter tensors: kornia's SigLip2Model (1.5 GB of weights) was held twice in every
worker step and in the discovery child, which set their peak memory.

Only on the device the parameters already live on: ``module.to(other device)`` moves
parameters in place, which would move the original's too.
"""

from __future__ import annotations

import copy
from typing import Any

SHARE_ABOVE = 64 * 1024 * 1024  # bytes of parameters above which a copy shares them


def parameter_bytes(module: Any) -> int:
    return sum(p.numel() * p.element_size() for p in module.parameters())


def module_weights(module: Any) -> list[Any]:
    """A module's weights: its parameters, then its buffers."""
    return [*module.parameters(), *module.buffers()]


def copy_module(module: Any, device: str | None = None) -> Any:
    """``copy.deepcopy(module)``, sharing its parameters when they are over :data:`SHARE_ABOVE` bytes and
    already on ``device`` (None: wherever they are). Raises what deepcopy raises."""
    memo: dict[int, Any] = {}
    parameters = list(module.parameters())
    if parameters and parameter_bytes(module) > SHARE_ABOVE and (
            device is None or all(p.device.type == device for p in parameters)):
        memo = {id(p): p for p in parameters}
    return copy.deepcopy(module, memo)


def copy_object(value: Any, device: str | None = None) -> Any:
    """A copy of an object a case holds or calls a method of: a module by :func:`copy_module`, anything else by
    deepcopy. One that refuses copying is returned itself (shared, as it is)."""
    import torch

    try:
        return copy_module(value, device) if isinstance(value, torch.nn.Module) else copy.deepcopy(value)
    except Exception:
        return value
