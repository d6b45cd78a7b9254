"""Workers forked from one warmed process instead of each importing torch from scratch.

A worker spends about 8 s of CPU before its first case is measured: importing torch,
dynamo, onnxruntime and onnxscript, and building the onnxscript op registry; and about
3 s more in its first ``torch.compile``: importing inductor and picking the CPU's vector
instruction set. A survey starts one worker per job and a fresh one after every crash,
timeout or memory recycle, so that start-up was paid again and again. Here the workers come from a
multiprocessing fork server whose one process did those imports once; each worker is
a fork of it and starts at once.

The fork server imports only libraries, never a case module, and runs no tensor
operation (torch's thread pools start on first use, after the fork, in each worker).
Where the platform has no fork server, or the warm-up fails, workers start as before
(spawned, importing everything themselves): slower, same results.

A run that probes CUDA spawns its workers. Importing inductor asks the CUDA driver how
many devices there are (torch 2.9.1's and 2.11.0's CUDA builds do, seen on an H200),
and torch then refuses CUDA in every process forked after that ("Cannot re-initialize
CUDA in forked subprocess"), so a warmed server's forks could measure nothing on CUDA.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from typing import Any, Iterator

from .parent_state import become
from .settings import limit_threads

WARM_MODULE = __name__  # the fork server imports this module (``warm``, below, runs at its import)
# set in the fork server's environment only, so that importing this module elsewhere warms nothing
_WARM_FLAG = "KEXPORT_WARM_START"


def worker_context(threads: int, *, cuda: bool = False) -> Any:
    """The multiprocessing context workers start from: a warmed fork server, else spawn (always with
    ``cuda``: a run whose workers use CUDA)."""
    if (cuda or "forkserver" not in multiprocessing.get_all_start_methods()
            or os.environ.get("KEXPORT_WARM") == "off"):
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([WARM_MODULE])
    from multiprocessing import forkserver

    # The server is started now, with the workers' thread settings in its environment (torch reads them when
    # it is imported, which is in the server); the probe's own environment is left as it was.
    with _environment({_WARM_FLAG: "1"}, threads):
        forkserver.ensure_running()
    return context


@contextlib.contextmanager
def _environment(extra: dict[str, str], threads: int) -> Iterator[None]:
    """``extra`` and the thread settings in this process's environment for a moment; only the keys that
    changed are put back (another thread of the probe may be starting a process meanwhile)."""
    before = dict(os.environ)
    try:
        os.environ.update(extra)
        limit_threads(threads)
        yield
    finally:
        become(before)


def warm() -> None:
    """In the fork server: the imports and the registry every worker needs. Best effort: any failure
    leaves the rest to each worker, and nothing is printed (the server's output is the user's terminal)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1), os.dup(2)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        import logging
        import warnings

        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")
        import onnxruntime  # noqa: F401
        import torch  # noqa: F401
        import torch._dynamo  # noqa: F401
        import torch.export  # noqa: F401
        from torch.onnx._internal.exporter import _compat, _constants, _registration  # noqa: F401

        from .speedups import reuse_onnx_registry, warm_inductor

        if reuse_onnx_registry():
            _registration.ONNXRegistry.from_torchlib(opset_version=_constants.TORCHLIB_OPSET)
        if os.environ.get("KEXPORT_WARM_INDUCTOR") != "off":  # off: benchmarks/bench_warm_start.py's other side
            warm_inductor()
        logging.disable(logging.NOTSET)
        warnings.resetwarnings()
    except Exception:  # noqa: BLE001 - each worker imports what is missing itself
        pass
    finally:
        os.environ.pop(_WARM_FLAG, None)  # the workers forked from here need not know
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


if os.environ.get(_WARM_FLAG) == "1":
    warm()
