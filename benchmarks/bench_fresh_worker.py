"""Benchmark: a model with large weights measured in a worker that measured other cases first, against a fresh one.

    python benchmarks/bench_fresh_worker.py [--repeats 1] [--before 30]

One worker (``--jobs 1``) measures the ``--before`` small operators of ``cases_bench.py`` (ONNX, torch.export,
torch.compile and their dynamic-batch passes), then kornia's DeFMO as its docstring example builds it
(random weights, 174 MB; an input of (2, 6, 240, 320)). Twice, alternating, ``--repeats`` times: with the
pool's rule off (every case in the one worker) and on (the probe's default: a case whose module holds
``FRESH_WORKER_ABOVE`` bytes of weights or more gets a worker that measured nothing before it). The
table gives DeFMO's worker peak and what that worker held when DeFMO began, the survey's wall time and
the workers started; medians over the repeats, the order alternating. The surveys run in this process
(``run_survey``; the workers are real processes), each from an empty work folder, after one unreported run
that fills inductor's on-disk cache (a temporary one, which every run shares). The first line names the
machine.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
MIB = 1024  # KiB per MiB

HEAVY_MODULE = '''
import torch
import kornia

from sphinx_kexport.probe import case

torch.manual_seed(0)
CASES = [case("DeFMO[random weights, 2x6x240x320]", kornia.feature.DeFMO(pretrained=False).eval(),
              [torch.rand(2, 6, 240, 320)], package="kornia.feature")]
'''
HEAVY = "DeFMO[random weights, 2x6x240x320] [cpu]"


def _survey(folder: Path, before: int, fresh_above: int) -> dict:
    from sphinx_kexport.probe import ProbeConfig, run_survey
    from sphinx_kexport.probe.run import pool

    small = _bench_case_names()[:before]
    heavy = folder / "heavy_cases.py"
    heavy.write_text(HEAVY_MODULE, encoding="utf-8")
    saved = pool.FRESH_WORKER_ABOVE
    pool.FRESH_WORKER_ABOVE = fresh_above
    began = time.monotonic()
    try:
        result = run_survey(ProbeConfig(cases=[str(REPO / "benchmarks" / "cases_bench.py"), str(heavy)],
                                        out=folder / "snapshot.json", jobs=1, only=[*small, "DeFMO*"]),
                            stream=io.StringIO())
    finally:
        pool.FRESH_WORKER_ABOVE = saved
    stats = result.stats
    return {"peak": stats["case_peak_rss_kb"][HEAVY] / MIB, "held": stats["case_began_rss_kb"][HEAVY] / MIB,
            "wall": time.monotonic() - began, "workers": len(stats["workers"]),
            "fresh": stats["workers_fresh_for_weights"]}


def _bench_case_names() -> list[str]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import cases_bench  # noqa: PLC0415 - the benchmark's own case module

    return [spec.name for spec in cases_bench.CASES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--before", type=int, default=30, help="small cases the worker measures before DeFMO")
    args = parser.parse_args()
    import kornia
    import torch

    from sphinx_kexport.probe.run.pool import FRESH_WORKER_ABOVE

    print(f"{platform.node()}: {os.cpu_count()} CPUs, Python {platform.python_version()}, torch {torch.__version__}, "
          f"kornia {kornia.__version__}; {args.before} small cases, then DeFMO; --jobs 1; {args.repeats} repeat(s)")
    rules = [("one worker for all", 1 << 62), ("a fresh worker for DeFMO", FRESH_WORKER_ABOVE)]
    rows: dict[str, list[dict]] = {label: [] for label, _ in rules}
    # inductor's on-disk cache, the same for every run: a first, unreported run fills it, so that no timed
    # run pays for compiling the kernels that the others then load
    with tempfile.TemporaryDirectory() as inductor_cache:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor_cache
        with tempfile.TemporaryDirectory() as folder:
            _survey(Path(folder), args.before, FRESH_WORKER_ABOVE)
        for repeat in range(args.repeats):
            for label, threshold in rules[:: 1 if repeat % 2 == 0 else -1]:  # alternate which goes first
                with tempfile.TemporaryDirectory() as folder:
                    rows[label].append(_survey(Path(folder), args.before, threshold))
    print(f"{'':28}{'DeFMO peak (MiB)':>18}{'held before (MiB)':>19}{'wall (s)':>10}{'workers':>9}")
    medians = {}
    for label, runs in rows.items():
        medians[label] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        m = medians[label]
        print(f"{label:28}{m['peak']:>18.0f}{m['held']:>19.0f}{m['wall']:>10.0f}{m['workers']:>9.0f}")
    one, fresh = medians["one worker for all"], medians["a fresh worker for DeFMO"]
    print(f"{'fresh / one (ratio)':28}{fresh['peak'] / one['peak']:>18.3f}{fresh['held'] / one['held']:>19.3f}"
          f"{fresh['wall'] / one['wall']:>10.3f}")


if __name__ == "__main__":
    main()
