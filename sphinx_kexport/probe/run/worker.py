"""A worker process: measures the cases it is sent, importing the case module of each on demand.

Protocol over a multiprocessing pipe (parent -> worker): an :class:`~.settings.Assignment` or ``None`` to
stop. Worker -> parent: the messages of :mod:`.messages` (``Ready`` once started, or ``CouldNotStart``; per
case: ``Environment`` before a device's first case, ``StepBegan``, ``PathResult`` and ``EagerDigest`` as the
case goes, then ``CaseDone``, or ``NotBuilt`` when the case cannot be built as the inventory described it).

The worker's stdout/stderr (torch's and onnxruntime's C++ chatter included)
go to a per-worker log file, with faulthandler on, so that a segfault leaves a
Python stack the parent can read a ``where`` from. Nothing here imports torch
before the environment (thread counts, inductor settings) is in place.
"""

from __future__ import annotations

import faulthandler
import gc
import logging
import os
import signal
import sys
import traceback
import warnings
from typing import Any

from ..cases.inventory import LoadError, SuiteRef
from ...snapshot.eager_change import EagerStamp
from ...snapshot.vocabulary import COMPILE
from ..cases.step import Step
from ..base.lifetime import die_with_parent
from ..base.memory import peak_rss_kb, reset_peak, rss_kb
from .messages import (CaseDone, CodeRan, CouldNotStart, EagerDigest, Environment, NotBuilt, PathResult, Ready,
                       StepBegan)
from .settings import WorkerSettings, limit_threads


def _redirect_output(log_path: str) -> Any:
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    log = open(log_path, "a", buffering=1, encoding="utf-8", errors="replace")
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    sys.stdout = sys.stderr = log
    faulthandler.enable(file=log, all_threads=False)
    # the parent sends SIGUSR1 before killing a case that timed out: the stack says where it hung
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=log, all_threads=False)
    return log


def _quiet() -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")


def serve(conn: Any, settings: WorkerSettings) -> None:
    """Entry point of a spawned worker."""
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:
        return
    settings.parent.adopt()  # before anything reads the environment
    log = _redirect_output(settings.log_path)
    threads = settings.threads
    limit_threads(threads)
    sys.path[:] = settings.sys_path
    _quiet()
    try:
        import torch

        torch.set_num_threads(threads)
        import onnxruntime

        onnxruntime.set_default_logger_severity(3)
        from .case_builder import CaseBuilder
        from ..discover.cache import refresh
        from ..measure import onnx_runtime
        from ..measure.measurement import Measurement
        from ..measure.environment import device_environment, device_name
        from ..measure.eager_digest import digest
        from ..measure.locate import library_root
        from ..measure.case_run import trim_heap
        from .speedups import reuse_onnx_registry
        from ..measure.code_watch import CodeWatch

        onnx_runtime.ORT_THREADS = threads
        reuse_onnx_registry()
        refresh(False)  # a fresh survey refreshed the discovery cache while it built the inventory
        cases = CaseBuilder(settings.sources)
        root = library_root(settings.library)
        watch = CodeWatch(settings.code_places, settings.code_folders) if settings.code_places else None
    except LoadError as exc:
        conn.send(CouldNotStart(str(exc)))
        return
    except Exception as exc:  # the parent imported the same modules; this is an environment problem
        conn.send(CouldNotStart(f"{type(exc).__name__}: {exc}"))
        return
    _quiet()  # importing the case modules may have configured logging again
    conn.send(Ready(os.getpid()))
    opset = settings.opset
    described: dict[str, str] = {}  # device -> its name, once its Environment went
    lifetime_peak = peak_rss_kb()  # start-up; each case's peak is counted afresh (memory.reset_peak)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        name, device, paths = task.name, task.device, task.paths
        if device not in described:
            conn.send(Environment(device, device_environment(device, opset)))
            described[device] = device_name(device)
        print(f"=== case {name!r} on {device}: {', '.join(paths)}", flush=True)

        def code_so_far(name: str = name, device: str = device) -> None:
            # as each step begins: a step lost to a timeout or a crash leaves the code that ran until it began
            if watch is not None:
                conn.send(CodeRan(name, device, watch.code()))

        def started(step: Step, name: str = name, device: str = device) -> None:
            print(f"--- {step.name}", flush=True)
            code_so_far()
            if watch is not None:  # dynamo reads what it compiles: its own list says what (measure/code_watch.py);
                # the speed pass runs nothing the path's step did not, and a line tracer would slow eager (and
                # eager only, beside onnxruntime or an exported graph) while it is timed
                watch.lines(step.path != COMPILE and not step.speed)
            conn.send(StepBegan(name, device, step))

        def finished(path: str, result: dict, name: str = name, device: str = device) -> None:
            conn.send(PathResult(name, device, path, result))

        def ran_eagerly(outputs: tuple, name: str = name, device: str = device) -> None:
            try:
                found = digest(outputs)
            except Exception:  # an output it cannot read byte for byte: no digest, the case measured as ever
                traceback.print_exc()
                return
            conn.send(EagerDigest(name, device, EagerStamp(found, str(torch.__version__), described[device])))

        began_kb = rss_kb()  # what earlier cases left behind: the case's own cost is its peak less this
        reset_peak()
        try:
            spec = cases.build(name, task.module, task.local_name, task.discovery, task.definition)
        except Exception as exc:  # a case the worker cannot rebuild is the probe's problem, never the operator's
            traceback.print_exc()
            log.flush()
            why = str(exc) if isinstance(exc, LoadError) else f"{type(exc).__name__}: {exc}"
            conn.send(NotBuilt(name, device, why))
            continue
        _quiet()  # importing a case module may have configured logging again
        measurement = Measurement(spec, device, opset, root, dynamic=settings.dynamic, speed=settings.speed)
        # from here: what building the case ran was watched where the inventory built it (measure/build_watch.py)
        if watch is not None:
            watch.start(_test_folders(task.discovery))
        try:
            measurement.measure(paths, started, finished, ran_eagerly)
            code_so_far()  # the last step's code (each earlier one's went with the next step's start)
        finally:
            if watch is not None:
                watch.stop()
        del measurement, spec
        gc.collect()  # the case's graphs sit in reference cycles; then the C heap's free pages go back
        trim_heap()
        log.flush()
        # memory torch and the allocator keep after a big case is not given back: a fresh process is
        # cheaper than carrying it into every later case (whose peak comes on top of it)
        case_peak = peak_rss_kb()
        lifetime_peak = max(lifetime_peak, case_peak)
        retiring = bool(settings.recycle_rss_kb) and rss_kb() > settings.recycle_rss_kb
        conn.send(CaseDone(name, device, lifetime_peak, case_peak, retiring, began_kb))
        if retiring:
            return


def _test_folders(discovery: Any) -> list[str]:
    """The folder of the tests a case was recorded from: its code counts too."""
    if isinstance(discovery, SuiteRef):
        return [discovery.tests if os.path.isdir(discovery.tests) else os.path.dirname(discovery.tests)]
    return []
