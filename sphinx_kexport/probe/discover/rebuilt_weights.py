"""Weights the discovery cache rebuilds instead of storing: those of a module the user's own code built with
random weights (``SigLip2Model(config)``, ``DexiNed(pretrained=False)``), unchanged since.

kornia.models' cache file held 2.4 GB, all but 20 MB of it such weights (SigLip2Model 1.5 GB, ViT-B 342 MB,
...), which a pull-request job restored before measuring anything. While the examples run, the recorder notes
each module the user's own code constructs: its class, a copy of the arguments, the global random states just
before (Python's, torch's, numpy's), and a digest of each of its large storages just after (:func:`note`). When
the cache stores a storage with one of those digests (unchanged since the module was built), it stores this
:class:`Recipe` once instead of the bytes; loading builds the module again under the same random states and
takes the storage only when its digest is the stored one (:func:`rebuild`). Weights changed after the build
(``load_state_dict``, a training step) have another digest and are stored as bytes; a rebuild that gives other
bytes (a constructor that reads a file that changed) fails the load, and the example runs again.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from typing import Any

from ..cases import containers
from ..cases.module_copy import module_weights
from ...snapshot.vocabulary import CPU
from .library import random_states, set_random_states

BLOB_MIN = 1 << 20  # bytes of a storage from which it is stored apart (case_pickle.py), or rebuilt from here


@dataclass
class Recipe:
    """How one module was built: ``cls(*args, **kwargs)`` under the global random ``states``; ``digests``: the
    digest and bytes of each of its large storages right after, in the order of :func:`large_storages`."""

    cls: type
    args: tuple
    kwargs: dict[str, Any]
    states: tuple[Any, Any, Any]
    digests: list[tuple[str, int]]


# digest of a storage -> (the recipe that builds it, its index in the recipe's storages); for this process
_NOTED: dict[str, tuple[Recipe, int]] = {}


def bytes_view(untyped: Any) -> Any:
    """A uint8 tensor over the whole of an untyped storage (no copy)."""
    import torch

    return torch.empty(0, dtype=torch.uint8).set_(untyped, 0, (untyped.nbytes(),), (1,))


def storage_digest(untyped: Any) -> str:
    """sha256 of an untyped storage's bytes, read in place."""
    return hashlib.sha256(memoryview(bytes_view(untyped).numpy())).hexdigest()


def large_storages(module: Any) -> list[Any]:
    """The distinct CPU storages of at least :data:`BLOB_MIN` bytes under a module's parameters and buffers."""
    found: dict[int, Any] = {}
    for tensor in module_weights(module):
        untyped = tensor.untyped_storage()
        if untyped.device.type == CPU and untyped.nbytes() >= BLOB_MIN:
            found.setdefault(untyped.data_ptr(), untyped)
    return list(found.values())


def before_build(cls: type, args: tuple, kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """What :func:`note` needs from before ``cls(*args, **kwargs)`` runs: the random states and a copy of the
    arguments (the constructor may change a config it is given); None when ``cls`` is no module, or when an
    argument is a module or tensor (copying it could cost as much as the weights, and the recipe would hold it)."""
    import torch

    if not issubclass(cls, torch.nn.Module):
        return None
    if any(isinstance(leaf, (torch.nn.Module, torch.Tensor)) for _, leaf in containers.walk([args, kwargs])):
        return None
    try:
        copied = copy.deepcopy((args, kwargs))
    except Exception:  # an argument that refuses copying: its module's weights are stored
        return None
    return (random_states(), *copied)


def note(module: Any, before: tuple[Any, ...] | None) -> None:
    """Note how ``module`` was built (``before``: :func:`before_build`'s), when it has large storages."""
    if before is None:
        return
    storages = large_storages(module)
    if not storages:
        return
    states, args, kwargs = before
    recipe = Recipe(type(module), args, kwargs, states, [(storage_digest(s), s.nbytes()) for s in storages])
    for index, (digest, _) in enumerate(recipe.digests):
        _NOTED.setdefault(digest, (recipe, index))


def recipe_of(digest: str) -> tuple[Recipe, int] | None:
    """The recipe that builds a storage with this digest, and its index there; None when none is noted."""
    return _NOTED.get(digest)


def rebuild(recipe: Recipe) -> dict[str, Any]:
    """Build the recipe's module again under its random states (the caller's left as they were): its large
    storages by digest, each checked against the recipe's digests. Raises ValueError when one differs."""
    kept = random_states()
    try:
        set_random_states(recipe.states)
        args, kwargs = copy.deepcopy((recipe.args, recipe.kwargs))
        module = recipe.cls(*args, **kwargs)
    finally:
        set_random_states(kept)
    storages = large_storages(module)
    digests = [(storage_digest(s), s.nbytes()) for s in storages]
    if digests != recipe.digests:
        differ = sum(1 for got, want in zip(digests, recipe.digests) if got != want)
        raise ValueError(f"{recipe.cls.__qualname__} built again gave other weights ({differ or len(digests)} of "
                         f"{len(recipe.digests)} large storages differ): its example runs again")
    for index, (digest, _) in enumerate(digests):
        _NOTED.setdefault(digest, (recipe, index))  # a later save (an edit reruns other examples) rebuilds them too
    return {digest: storage for (digest, _), storage in zip(digests, storages)}
