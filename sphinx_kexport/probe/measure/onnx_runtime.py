"""Running an exported ONNX model in onnxruntime: its arguments, its provider, its session, its inputs by name."""

from __future__ import annotations

from typing import Any

from ..cases import containers
from . import compare_outputs

ORT_THREADS = 0  # onnxruntime intra-op threads; 0 = its default (the worker sets its share of the CPUs)


def onnx_args(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """``inputs`` as ``torch.onnx.export``'s ``args``: the exporter reads a trailing dict in ``args`` as
    keyword arguments (even with ``kwargs={}``, which it treats as none), so a case whose last input is a
    dict gets an empty dict after it, which the exporter takes as the (empty) keyword arguments."""
    return (*inputs, {}) if inputs and isinstance(inputs[-1], dict) else tuple(inputs)


def onnx_provider(device: str, onnxruntime: Any) -> str:
    if device == "cuda" and "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        return "CUDAExecutionProvider"
    return "CPUExecutionProvider"


def onnx_session(model: Any, device: str, onnxruntime: Any) -> tuple[Any, str]:
    """An onnxruntime session for ``model`` and the provider it really uses."""
    provider = onnx_provider(device, onnxruntime)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = ORT_THREADS
    options.inter_op_num_threads = 1
    providers = [provider] + (["CPUExecutionProvider"] if provider != "CPUExecutionProvider" else [])
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=providers)
    return session, session.get_providers()[0]


def map_onnx_inputs(graph_inputs: list[str], inputs: tuple[Any, ...]
                    ) -> tuple[dict[str, Any], list[str], str]:
    """Feed by name (in0, in0_key, in1_0, ...: the exporter flattens containers in this order);
    inputs the exporter folded away are reported, not fed."""
    arrays = {name: compare_outputs.to_numpy(t) for name, t in containers.input_leaves(inputs)}
    if all(name in arrays for name in graph_inputs):
        feed = {name: arrays[name] for name in graph_inputs}
        return feed, [name for name in arrays if name not in feed], ""
    if len(graph_inputs) == len(arrays):  # renamed by the exporter, same count: positional
        return dict(zip(graph_inputs, arrays.values())), [], ""
    return {}, [], (f"cannot map the case's {len(arrays)} input tensors onto the graph inputs "
                    f"{', '.join(graph_inputs)}")
