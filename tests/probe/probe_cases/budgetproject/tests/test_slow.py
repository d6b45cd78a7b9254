import torch

from budgetlib import shift


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
