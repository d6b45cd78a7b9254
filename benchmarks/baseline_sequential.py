"""Baseline for the probe benchmark: the three paths back to back in one process, as Kornia's survey does.

A plain script with no workers, no crash isolation and no resume: for each
case the eager reference, then torch.onnx.export + onnx.checker +
onnxruntime, then torch.export (run and compared), then torch._dynamo.explain
+ torch.compile. It applies the same status rules as the probe so the two can
be compared case by case.

    python benchmarks/baseline_sequential.py OUT.json
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases_bench  # noqa: E402

SEED = 1234


class Wrapper(torch.nn.Module):
    def __init__(self, fn, kwargs):
        super().__init__()
        self.fn, self.kwargs = fn, kwargs

    def forward(self, *args):
        out = self.fn(*args, **self.kwargs)
        return out if isinstance(out, tuple) else (out,)


def as_numpy(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def verdict(spec, ref, got) -> str:
    if len(ref) != len(got):
        return "mismatch"
    for r, g in zip(ref, got):
        r, g = as_numpy(r), as_numpy(g)
        if r.shape != g.shape:
            return "mismatch"
        if not spec.check:
            if g.dtype.kind == "f" and not np.isfinite(g).all() and np.isfinite(r).all():
                return "mismatch"
            continue
        if r.dtype == np.bool_ or g.dtype == np.bool_:
            if (r != g).any():
                return "mismatch"
            continue
        a, b = r.astype(np.float64), g.astype(np.float64)
        if (np.isnan(a) != np.isnan(b)).any():
            return "mismatch"
        keep = ~np.isnan(a)
        if not np.allclose(b[keep], a[keep], atol=spec.atol, rtol=spec.rtol):
            return "mismatch"
    return "ok-unverified" if not spec.check else "ok"


def seeded(fn):
    torch.manual_seed(SEED)
    with torch.no_grad():
        return fn()


def onnx_path(spec, wrapper, inputs, ref) -> str:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            program = seeded(lambda: torch.onnx.export(wrapper, tuple(inputs), dynamo=True, opset_version=18,
                                                       report=False, verbose=False))
        model = program.model_proto
        onnx.checker.check_model(model, full_check=True)
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        outputs = session.run(None, {n: as_numpy(t) for n, t in zip(names, inputs)})
    except Exception:
        return "fail"
    return verdict(spec, ref, outputs)


def export_path(spec, wrapper, inputs, ref) -> str:
    try:
        program = seeded(lambda: torch.export.export(wrapper, tuple(inputs)))
        outputs = seeded(lambda: program.module()(*[t.clone() for t in inputs]))
    except Exception:
        return "fail"
    return verdict(spec, ref, outputs)


def compile_path(spec, wrapper, inputs, ref) -> str:
    try:
        torch._dynamo.reset()
        with contextlib.redirect_stdout(io.StringIO()):
            explained = seeded(lambda: torch._dynamo.explain(wrapper)(*inputs))
        # counted as the probe counts them: explain's graph_break_count misses a break after the
        # last graph (the rest of the function runs in Python), its break_reasons do not
        breaks = max(explained.graph_break_count, len(explained.break_reasons))
        torch._dynamo.reset()
        outputs = seeded(lambda: torch.compile(wrapper)(*[t.clone() for t in inputs]))
    except Exception:
        return "fail"
    finally:
        torch._dynamo.reset()
    status = verdict(spec, ref, outputs)
    return "ok-breaks" if status == "ok" and breaks else status


def main(out: str) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    onnxruntime.set_default_logger_severity(3)
    began = time.monotonic()
    statuses = {}
    for spec in cases_bench.CASES:
        if spec.skip:
            statuses[spec.name] = {"onnx": "n/a", "export": "n/a", "compile": "n/a"}
            continue
        wrapper = Wrapper(spec.target, spec.kwargs).eval()
        inputs = [t.clone() for t in spec.inputs]
        try:
            ref = seeded(lambda: wrapper(*[t.clone() for t in inputs]))
        except Exception:
            statuses[spec.name] = {"onnx": "n/a", "export": "n/a", "compile": "n/a"}
            continue
        statuses[spec.name] = {
            "onnx": onnx_path(spec, wrapper, [t.clone() for t in inputs], ref),
            "export": export_path(spec, wrapper, inputs, ref),
            "compile": compile_path(spec, wrapper, inputs, ref),
        }
        print(f"{spec.name:<40} {statuses[spec.name]}", flush=True)
    result = {"wall_seconds": round(time.monotonic() - began, 3),
              "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "statuses": statuses}
    Path(out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
