"""Running an exported ONNX model in onnxruntime: its arguments, its file, its provider, its session, its inputs by
name.

The exported model goes through a file, its weights beside it (external data),
never through an in-memory ``ModelProto``: ``program.model_proto`` copies every
weight into protobuf, ``check_model`` serialises that copy again and the session
reads a third, so a 1.5 GB model (kornia's SigLip2Model) peaked at 8.9 GB in the
worker. From a file the checker reads only the graph and onnxruntime reads the
weights once; models over protobuf's 2 GB limit load too.
"""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...snapshot.vocabulary import CUDA
from ..base.errors import ProbeError
from ..cases import containers

COLLECT_ABOVE = 256 * 1024 * 1024  # bytes of a saved model above which its graph is collected at once
ORT_THREADS = 0  # onnxruntime intra-op threads; 0 = its default (the worker sets its share of the CPUs)


def onnx_args(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """``inputs`` as ``torch.onnx.export``'s ``args``: the exporter reads a trailing dict in ``args`` as
    keyword arguments (even with ``kwargs={}``, which it treats as none), so a case whose last input is a
    dict gets an empty dict after it, which the exporter takes as the (empty) keyword arguments."""
    return (*inputs, {}) if inputs and isinstance(inputs[-1], dict) else tuple(inputs)


def onnx_provider(device: str, onnxruntime: Any) -> str:
    if device == CUDA and "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        return "CUDAExecutionProvider"
    return "CPUExecutionProvider"


class NotSaved(ProbeError):
    """The exporter's program could not be written as an ONNX file (a translation problem)."""


@contextmanager
def saved_model(program: Any) -> Iterator[str]:
    """The path of ``program`` (a ``torch.onnx.ONNXProgram``) saved with its weights as external data,
    in a directory removed afterwards. The caller drops its own reference to ``program`` before it enters
    (``with saved_model(program.pop()) as path``), so that only the file holds the graph while it is checked
    and run."""
    with tempfile.TemporaryDirectory(prefix="kexport-onnx-") as directory:
        path = os.path.join(directory, "model.onnx")
        try:
            program.save(path, external_data=True)
        except Exception as exc:
            raise NotSaved(f"the exported ONNX model cannot be written to a file: {exc}") from exc
        del program
        if sum(entry.stat().st_size for entry in os.scandir(directory)) > COLLECT_ABOVE:
            gc.collect()  # the graph and the constants the exporter made sit in reference cycles
        yield path


def onnx_session(model: str, device: str, onnxruntime: Any) -> tuple[Any, str]:
    """An onnxruntime session for the model file ``model`` and the provider it really uses."""
    provider = onnx_provider(device, onnxruntime)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = ORT_THREADS
    options.inter_op_num_threads = 1
    providers = [provider] + (["CPUExecutionProvider"] if provider != "CPUExecutionProvider" else [])
    session = onnxruntime.InferenceSession(model, options, providers=providers)
    return session, session.get_providers()[0]


def map_onnx_inputs(graph_inputs: list[str], inputs: tuple[Any, ...]
                    ) -> tuple[dict[str, Any], list[str], str]:
    """Feed by name (in0, in0_key, in1_0, ...: the exporter flattens containers in this order);
    inputs the exporter folded away are reported, not fed."""
    from . import compare_outputs  # imports torch: importing this module (NotSaved) must not

    arrays = {name: compare_outputs.to_numpy(t) for name, t in containers.input_leaves(inputs)}
    if all(name in arrays for name in graph_inputs):
        feed = {name: arrays[name] for name in graph_inputs}
        return feed, [name for name in arrays if name not in feed], ""
    if len(graph_inputs) == len(arrays):  # renamed by the exporter, same count: positional
        return dict(zip(graph_inputs, arrays.values())), [], ""
    return {}, [], (f"cannot map the case's {len(arrays)} input tensors onto the graph inputs "
                    f"{', '.join(graph_inputs)}")
