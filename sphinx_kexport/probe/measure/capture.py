"""One capture per path: how a case's wrapper and inputs become what the path runs.

The measurement (measurement.py), the dynamic-batch pass (dynamic_batch.py) and the speed pass (speed.py)
capture through these functions only, so the three see the same exporter settings; each caller decides
what a failure means at its stage.

* ONNX: :func:`onnx_program`, ``torch.onnx.export(dynamo=True)`` at the probe's opset;
* torch.export: :func:`exported_program`;
* torch.compile: :func:`compiled` (inductor, or the trace-only backend) and :func:`fullgraph_watched`,
  ``torch.compile(fn, fullgraph=True)`` with inductor as the status decides it, which also says whether
  dynamo handed inductor a graph at all and what that graph holds (:class:`Handed`): dynamo's first break
  and inductor's rejection are then told apart without a second, trace-only compile, and a graph without
  data-dependent values tells the default compile's breaks (graph_breaks.default_record_of).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from .onnx_runtime import onnx_args

INDUCTOR = "inductor"  # torch.compile's default backend (torch's name for it)


def onnx_program(wrapper: torch.nn.Module, inputs: tuple[Any, ...], opset: int,
                 dynamic_shapes: Any = None) -> Any:
    """The ONNX exporter's program of ``wrapper`` at ``inputs`` (``dynamic_shapes`` as torch.export takes them)."""
    extra = {} if dynamic_shapes is None else {"dynamic_shapes": dynamic_shapes}
    return torch.onnx.export(wrapper, onnx_args(inputs), dynamo=True, opset_version=opset, report=False,
                             verbose=False, **extra)


def exported_program(wrapper: torch.nn.Module, inputs: tuple[Any, ...],
                     dynamic_shapes: Any = None) -> torch.export.ExportedProgram:
    return torch.export.export(wrapper, inputs, dynamic_shapes=dynamic_shapes)


def compiled(wrapper: torch.nn.Module, fullgraph: bool, dynamic: bool | None = None,
             backend: str | Callable[..., Any] = INDUCTOR) -> Callable[..., Any]:
    """``torch.compile(wrapper)`` as the probe compiles it; nothing is compiled before its first call."""
    return torch.compile(wrapper, fullgraph=fullgraph, dynamic=dynamic, backend=backend)


@dataclass
class Handed:
    """What dynamo handed inductor under ``fullgraph=True``, seen by the backend as it was called."""

    graphs: int = 0  # graphs handed over (0: dynamo stopped before, at its first break)
    calls: int = 0  # operator calls in them
    data_dependent: bool = False  # a value read from a tensor's data (.item(), nonzero's size) became a symbol


def _data_dependent(graph: torch.fx.GraphModule, example_inputs: list[Any]) -> bool:
    """Whether the graph holds an unbacked symbol: what only fullgraph=True captures (graph_breaks.py)."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.symbolic_shapes import SymT, symbol_is_type

    if any(node.meta.get("unbacked_bindings") for node in graph.graph.nodes):
        return True
    mode = detect_fake_mode(example_inputs)
    env = getattr(mode, "shape_env", None)
    return env is not None and any(symbol_is_type(s, (SymT.UNBACKED_INT, SymT.UNBACKED_FLOAT))
                                   for s in env.var_to_range)


def fullgraph_watched(wrapper: torch.nn.Module) -> tuple[Callable[..., Any], Handed]:
    """``torch.compile(wrapper, fullgraph=True)`` with inductor, and what it is handed once called.

    The backend is inductor's own entry (``compile_fx``, as ``backend="inductor"`` calls it in the default
    mode), looked at first."""
    handed = Handed()

    def inductor(graph: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        from torch._inductor.compile_fx import compile_fx

        handed.graphs += 1
        handed.calls += sum(node.op in ("call_function", "call_method", "call_module") for node in graph.graph.nodes)
        handed.data_dependent = handed.data_dependent or _data_dependent(graph, example_inputs)
        return compile_fx(graph, example_inputs)

    return compiled(wrapper, fullgraph=True, backend=inductor), handed
