"""The callable every path captures: fresh, device-placed copies of one case's target and inputs.

Every path (and the dynamic-batch pass) starts from fresh copies, so an
operator that mutates its inputs or buffers cannot leak state from one path
into the next; every run draws random numbers from the same seed.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import torch

from ..cases import containers
from ..cases.registry import CaseSpec
from . import compare_outputs

SEED = 1234


def seeded(fn: Callable[[], Any]) -> Any:
    """``fn()`` from the probe's seed, without autograd: eager and every capture draw the same numbers."""
    torch.manual_seed(SEED)
    with torch.no_grad():
        return fn()


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
    callee = getattr(target, method) if method else target
    bound_kwargs = dict(kwargs)

    def call(*args: Any) -> Any:
        return callee(*args, **bound_kwargs)

    wrapper.__dict__["_call"] = call
    wrapper.__dict__["_flatten"] = compare_outputs.flatten_outputs
    return wrapper.eval()


def _on_device(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple takes its fields one by one
        return type(value)(*(_on_device(v, device) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_on_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _on_device(v, device) for k, v in value.items()}
    return value


class CaseRun:
    """Fresh, device-placed copies of one case's callable and inputs."""

    def __init__(self, spec: CaseSpec, device: str):
        self.spec = spec
        self.device = device
        self.kwargs = _on_device(spec.kwargs, device)

    def inputs(self) -> tuple[Any, ...]:
        """Fresh copies of the inputs (tensors, or dicts, lists and tuples of them) on the device."""
        return tuple(containers.rebuild(value, lambda t: t.detach().clone().to(self.device))
                     for value in self.spec.inputs)

    def wrapper(self) -> torch.nn.Module:
        target = self.spec.target
        if isinstance(target, torch.nn.Module):
            try:
                target = copy.deepcopy(target)
            except Exception:  # some modules refuse deepcopy; share the instance then
                pass
            target = target.to(self.device).eval()
        return build_wrapper(target, self.kwargs, self.spec.method, len(self.spec.inputs))
