"""Whether a recorded call is random: it draws random numbers, or gives other outputs under other seeds.

A random call's outputs are compared in full only under torch.compile (drawn as eager draws:
measure/random_draws.py), elsewhere on count, rank, dtype and finiteness. Shared by docstring and test discovery.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any, Iterator

from .recording import seed_everything
from ...cases.module_copy import copy_module

RANDOM_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8)  # deterministic callables run under each of them


def _outputs_differ(first: list[Any], second: list[Any]) -> bool:
    import torch

    if len(first) != len(second):
        return True
    for a, b in zip(first, second):
        if a.shape != b.shape or a.dtype != b.dtype:
            return True
        if not torch.equal(a, b) and not (a.is_floating_point() and torch.allclose(a, b, equal_nan=True,
                                                                                   rtol=0, atol=0)):
            return True
    return False


def tensors_and_randomness(target: Any, tensors: list[Any], baked: dict[str, Any]) -> tuple[bool, bool]:
    """(the call's result holds a tensor, the call is random (see :func:`is_random`)), from as few runs as
    they need: the first run answers both (and, for a call that reads no random state, all of it). A call
    that raises here is kept (the probe reports it) and not random."""
    runs = _seeded_runs(target, tensors, baked)
    try:
        draws, outputs = next(runs)
    except Exception:
        return True, False
    if not outputs:
        return False, False
    return True, _random_from(draws, outputs, runs)


def is_random(target: Any, tensors: list[Any], baked: dict[str, Any]) -> bool:
    """The call draws random numbers, or runs under different seeds give different outputs (an
    exception counts as not random).

    A call watched by the dispatch mode that draws nothing, and leaves Python's
    and numpy's random state as the seed set it, cannot depend on the seed: one
    run decides (piq's PR example took 54 s of discovery running nine times).
    Otherwise up to ``len(RANDOM_SEEDS)`` runs, stopping at the first that
    differs from the first run: an augmentation applied with probability 0.5 to
    a batch of one gives the same output under two seeds half the time
    (kornia's ``RandomClahe`` example did under seeds 1 and 2, and its ONNX
    check then reported a mismatch).
    """
    return tensors_and_randomness(target, tensors, baked)[1]


def _seeded_runs(target: Any, tensors: list[Any], baked: dict[str, Any]) -> Iterator[tuple[bool | None, list]]:
    """(draws, flat outputs) of the call under each of RANDOM_SEEDS in turn, each on a fresh copy of a
    module; runs only as far as it is read. Raises what the call raises."""
    from ...measure.output_leaves import flatten_outputs

    import torch

    for seed in RANDOM_SEEDS:
        callee = copy_module(target).eval() if isinstance(target, torch.nn.Module) else target
        draws, result = _run_watching_draws(callee, tensors, baked, seed)
        yield draws, flatten_outputs(result)


def _random_from(draws: bool | None, first: list, more: Iterator[tuple[bool | None, list]]) -> bool:
    """Whether the call is random, given its first run (``draws``, ``first``) and the runs after it."""
    if draws is not None:  # watched: it drew (random), or read nothing the seed sets (not random)
        return draws
    try:
        for draws, outputs in more:
            if draws or _outputs_differ(first, outputs):
                return True
    except Exception:
        return False
    return False


@functools.lru_cache(maxsize=None)
def _random_draws_class() -> type:
    """A dispatch mode that notes whether a seeded random aten op (rand, bernoulli, randperm, ...) ran;
    built once (torch is imported only when discovery runs)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class RandomDraws(TorchDispatchMode):
        seen = False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
                self.seen = True
            return func(*args, **(kwargs or {}))

    return RandomDraws


def _run_watching_draws(callee: Any, tensors: list[Any], baked: dict[str, Any], seed: int
                        ) -> tuple[bool | None, Any]:
    """(whether the call ran a seeded random aten op, its result) under ``seed``; None for "not known":
    it read Python's or numpy's random state, or failed under the dispatch mode and was run plainly
    (its outputs decide then).

    Outputs alone miss a draw that happened to change nothing: kornia's RandomChannelShuffle on two
    channels kept their order under every seed tried, was registered checked, and its ONNX graph (which
    draws with onnxruntime's own generator) then read as a mismatch."""
    import torch

    states: list[Any] = []

    def call() -> Any:
        seed_everything(seed)
        states.append(_other_random_states())
        with torch.no_grad():
            result = callee(*[t.clone() for t in tensors], **copy.deepcopy(baked))
        states.append(_other_random_states())
        return result

    try:
        with _random_draws_class()() as mode:
            result = call()
    except Exception:
        return None, call()
    if mode.seen:
        return True, result
    return (False if states[0] == states[1] else None), result


def _other_random_states() -> tuple[Any, Any]:
    """Python's and numpy's global random state, comparable with ``==``."""
    try:
        import numpy
    except ImportError:
        return random.getstate(), None
    kind, key, position, has_gauss, gauss = numpy.random.get_state()
    return random.getstate(), (kind, key.tobytes(), position, has_gauss, gauss)
