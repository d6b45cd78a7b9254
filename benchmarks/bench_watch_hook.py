"""Benchmark: which hook the code watch should use on this Python, on what a case runs (eager and torch.export).

    PYTHONPATH=.:KORNIA python benchmarks/bench_watch_hook.py [--rounds 5]

The code watch needs the functions a case starts (measure/code_watch.py). Hooks compared on one workload,
kornia's ``GaussianBlur2d`` and ``ColorJiggle`` run eagerly, then ``GaussianBlur2d`` captured by
``torch.export.export`` (the library's Python and much of torch's, as the ONNX and export steps run them):

- ``off``: no hook;
- ``settrace``: a ``sys.settrace`` global function that records the frame's code and returns None (no line
  traced), the watch's hook under Python 3.11;
- ``settrace, nothing``: a global trace function that does nothing: what any hook costs at least;
- ``setprofile``: a ``sys.setprofile`` function that records on ``call`` (it is called at every return and C
  call too);
- ``monitoring`` (3.12+): ``sys.monitoring``'s PY_START, disabled after each code object's first call, the
  watch's hook from 3.12 on;
- ``coverage``: coverage.py's line tracer over kornia's folder, what the watch used before (when installed).

Each round runs every hook once, in an order rotated per round; the table gives each hook's median seconds
over the rounds and its ratio to ``off``'s median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any, Callable

import torch


def workload() -> None:
    import kornia

    x = torch.rand(2, 3, 32, 32)
    blur = kornia.filters.GaussianBlur2d((5, 5), (1.5, 1.5))
    jiggle = kornia.augmentation.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0)
    for _ in range(40):
        blur(x)
        jiggle(x)
    torch.export.export(blur, (x,))
    torch.export.export(kornia.color.RgbToHsv(), (x,))
    torch.export.export(kornia.filters.Sobel(), (x,))


def hooks(folder: str) -> dict[str, tuple[Callable[[], None], Callable[[], None]]]:
    """name -> (turn it on, turn it off)."""
    seen: set[tuple[str, str]] = set()
    watched: dict[str, bool] = {}

    def record(code: Any) -> None:
        inside = watched.get(code.co_filename)
        if inside is None:
            inside = watched[code.co_filename] = os.path.realpath(code.co_filename).startswith(folder)
        if inside:
            seen.add((code.co_filename, code.co_qualname))

    def traced(frame: Any, _event: str, _arg: Any) -> None:
        record(frame.f_code)

    def nothing(_frame: Any, _event: str, _arg: Any) -> None:
        return None

    def profiled(frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            record(frame.f_code)

    found: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {
        "off": (lambda: None, lambda: None),
        "settrace": (lambda: sys.settrace(traced), lambda: sys.settrace(None)),
        # the floor of any trace function: it records nothing (under 3.11 the interpreter runs every instruction
        # unspecialised while one is set, whatever it does)
        "settrace, nothing": (lambda: sys.settrace(nothing), lambda: sys.settrace(None)),
        "setprofile": (lambda: sys.setprofile(profiled), lambda: sys.setprofile(None)),
    }
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        tool = 4
        monitoring.use_tool_id(tool, "bench")

        def started(code: Any, _offset: int) -> Any:
            record(code)
            return monitoring.DISABLE

        monitoring.register_callback(tool, monitoring.events.PY_START, started)

        def monitor_on() -> None:
            monitoring.restart_events()
            monitoring.set_events(tool, monitoring.events.PY_START)

        found["monitoring"] = (monitor_on, lambda: monitoring.set_events(tool, 0))
    try:
        import coverage
    except ImportError:
        return found
    tracer = coverage.Coverage(data_file=None, config_file=False, include=[os.path.join(folder, "*")])
    tracer.set_option("run:core", "ctrace")

    def coverage_on() -> None:
        tracer.erase()
        tracer.start()

    found["coverage"] = (coverage_on, tracer.stop)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import kornia

    folder = os.path.dirname(os.path.realpath(kornia.__file__))
    torch.set_num_threads(1)
    workload()  # warm: imports, the first export's caches
    options = hooks(folder)
    names = list(options)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            on, off = options[name]
            began = time.process_time()
            on()
            try:
                workload()
            finally:
                off()
            seconds[name].append(time.process_time() - began)
    base = statistics.median(seconds["off"])
    print(f"Python {sys.version.split()[0]}, torch {torch.__version__}, kornia {kornia.__version__} at {folder}, "
          f"{args.rounds} rounds, load average {os.getloadavg()[0]:.2f}")
    for name in names:
        median = statistics.median(seconds[name])
        print(f"{name:16} {median:7.3f} s  x{median / base:.3f}  ({', '.join(f'{s:.2f}' for s in seconds[name])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
