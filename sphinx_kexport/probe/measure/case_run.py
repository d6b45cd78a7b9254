"""The callable every path captures: fresh, device-placed copies of one case's target and inputs.

Every path (and the dynamic-batch pass) starts from fresh copies, so an
operator that mutates its inputs or buffers cannot leak state from one path
into the next; every run draws random numbers from the same seed.

A large module's copy is emptied when its step is over (:meth:`CaseRun.release`):
the ONNX exporter keeps the last graph it translated, weights included, and dynamo
keeps what it traced until it is reset, so a 1.5 GB model's copy outlived its path
and the worker carried two of them into the next.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import inspect
import types
import weakref
from typing import Any, Callable, Iterator

import torch

from ...snapshot.repro_landmarks import SEED  # the seed the repro snippets start from too
from ..cases import containers
from ..cases.module_copy import copy_object, module_weights
from ..cases.registry import CaseSpec
from . import number_outputs

RELEASE_ABOVE = 64 * 1024 * 1024  # bytes of a module copy's weights above which release() empties them


def seeded(fn: Callable[[], Any]) -> Any:
    """``fn()`` from the probe's seed, without autograd: eager and every capture draw the same numbers."""
    torch.manual_seed(SEED)
    with torch.no_grad():
        return fn()


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """torch's CPU math on one thread inside the block, the worker's share of the CPUs again after it.

    For the eager reference, whose digest (eager_digest.py) must not move with ``--jobs`` or the number of
    cores: torch 2.13 sums 1,000,000 floats to a different last bit on 1, 2 and 4 threads."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _make_wrapper_class(n_inputs: int) -> type:
    # generated so that the forward has exactly n named positional inputs: the
    # exported graphs then name their inputs in0, in1, ... and ONNX inputs can
    # be matched by name even when the exporter folds some away
    names = ", ".join(f"in{i}" for i in range(n_inputs))
    namespace: dict[str, Any] = {}
    exec(f"def forward(self, {names}):\n    return self._flatten(self._call({names}))\n", namespace)
    return type("ProbedCase", (torch.nn.Module,), {"forward": namespace["forward"]})


def build_wrapper(target: Any, kwargs: dict[str, Any], method: str | None, n_inputs: int) -> torch.nn.Module:
    wrapper = _make_wrapper_class(n_inputs)()
    if isinstance(target, torch.nn.Module):
        wrapper.target = target  # a submodule, so its parameters and buffers are captured
    else:
        wrapper.__dict__["target"] = target
        owner = getattr(target, "__self__", None)
        if isinstance(owner, torch.nn.Module):
            # a method of a module (``q.inv()``, ``model.get_image_features``): the module is a submodule too, so
            # its weights are captured as weights, as a user's wrapper module holding the model captures them
            wrapper.owner = owner
    callee = getattr(target, method) if method else target
    bound_kwargs = dict(kwargs)

    def call(*args: Any) -> Any:
        return callee(*args, **bound_kwargs)

    wrapper.__dict__["_call"] = call
    wrapper.__dict__["_flatten"] = number_outputs.outputs_or_numbers  # its tensors, or else its numbers
    return wrapper.eval()


def _on_device(value: Any, device: str) -> Any:
    """``value`` (a baked argument) with its tensors on ``device``, its containers (a NamedTuple too) kept."""
    return containers.rebuild(value, lambda leaf: leaf.to(device) if isinstance(leaf, torch.Tensor) else leaf)


class CaseRun:
    """Fresh, device-placed copies of one case's callable and inputs."""

    def __init__(self, spec: CaseSpec, device: str):
        self.spec = spec
        self.device = device
        self.kwargs = _on_device(spec.kwargs, device)
        # the weights of the large module copies made since the last release(), weakly: the exporter keeps
        # the weight tensors after the copy itself is gone, and a weight nothing holds is already freed
        self._copied: list[weakref.ref[torch.Tensor]] = []

    def inputs(self) -> tuple[Any, ...]:
        """Fresh copies of the inputs (tensors, or dicts, lists and tuples of them) on the device."""
        return tuple(self.fresh(value) for value in self.spec.inputs)

    def fresh(self, value: Any) -> Any:
        """A fresh copy of one input (a tensor, or a container of them) on the device."""
        return containers.rebuild(value, lambda t: t.detach().clone().to(self.device))

    def wrapper(self) -> torch.nn.Module:
        target = self.spec.target
        if isinstance(target, torch.nn.Module):
            # a large module's copy shares its parameters; one that refuses deepcopy is shared itself
            target = copy_object(target, self.device).to(self.device).eval()
            if target is not self.spec.target and _weight_bytes(target) > RELEASE_ABOVE:
                self._copied += [weakref.ref(t) for t in module_weights(target)]
        elif _bound_to_an_instance(target):
            # a method may change its object in place (kornia's Boxes.transform_boxes_): every step starts from
            # the object as recorded, or eager and each path would see it changed a different number of times
            target = types.MethodType(target.__func__, copy_object(target.__self__, self.device))
        return build_wrapper(target, self.kwargs, self.spec.method, len(self.spec.inputs))

    def release(self) -> None:
        """Free the weights of the large copies still alive; call it when the step that used them is over.

        Only storage the case's own target does not share is freed (a module whose deepcopy shares
        tensors keeps them)."""
        if not self._copied:
            return
        own = {t.untyped_storage().data_ptr() for t in module_weights(self.spec.target)}
        for ref in self._copied:
            tensor = ref()
            if tensor is None or tensor.untyped_storage().data_ptr() in own:
                continue
            try:  # the storage itself: the exporter's and dynamo's aliases of the weight share it
                tensor.untyped_storage().resize_(0)
            except RuntimeError:  # not resizable (from numpy, say): at least this tensor lets go
                tensor.data = torch.empty(0, dtype=tensor.dtype, device=tensor.device)
        self._copied.clear()
        gc.collect()  # a large case's graphs and activations sit in reference cycles
        trim_heap()


def trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc keeps them after a large case's many small
    allocations); elsewhere a no-op."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _weight_bytes(module: torch.nn.Module) -> int:
    return sum(t.numel() * t.element_size() for t in module_weights(module))


def _bound_to_an_instance(target: Any) -> bool:
    """A method bound to an object (not a classmethod's class, not a module of Python's)."""
    owner = getattr(target, "__self__", None)
    return inspect.ismethod(target) and not inspect.isclass(owner) and not isinstance(owner, types.ModuleType)
