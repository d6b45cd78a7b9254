import time

import torch
import torch._dynamo  # imported at collection: the limit is for the test's own work, not this import

from budgetlib import scale, shift


def _spin() -> None:
    total = 0
    while True:  # a statistics check that would run for minutes (e3nn's test_normalized)
        total += 1


def test_calls_then_runs_long():
    shift(torch.ones(2, 3), by=2.0)
    _spin()


def test_runs_long_before_calling():
    _spin()
    shift(torch.ones(4))


def test_quick():
    assert shift(torch.zeros(5)).sum() == 5


def _work(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:  # a long computation between two calls (e3nn's test_square_normalization)
        pass


def test_calls_between_long_computations():
    # 0.9 s of CPU time in all, never 0.5 s without a new call: past a limit counted from the start of the
    # phase, within one counted from the test's last new call
    for size in (1, 2, 3):
        _work(0.3)
        scale(torch.ones(size, 4))


def _slow_backend(graph, example_inputs):
    _spin()  # a compiler that runs past the limit: dynamo hands on what it raised as BackendCompilerFailed


def test_compiles_past_the_limit():
    compiled = torch.compile(lambda x: shift(x) * 2, backend=_slow_backend, fullgraph=True)
    compiled(torch.ones(3))
