import os

import torch

import copylib

MIB = 2**20
LARGE_MIB = 40  # over the 16 MiB a call may copy in tests/probe/discover/test_probe_suite_copies.py


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def said(name: str, value: int) -> None:
    """What the test measured, for the test of the discovery that ran it."""
    with open(os.environ["COPYLIB_SAID"], "a", encoding="utf-8") as out:
        out.write(f"{name} {value}\n")


def test_passes_a_tensor_too_large_to_keep():
    large = torch.ones(LARGE_MIB * MIB // 4)
    before = rss_kib()
    assert copylib.total(large) == large.numel()
    said("large_call_grew_kib", rss_kib() - before)


def test_a_small_call_after_it():
    assert copylib.total(torch.ones(2, 3)) == 6


def test_calls_in_a_loop():
    x = torch.ones(64, 1024)  # 256 KiB: a hundred copies would hold 25 MiB
    before = rss_kib()
    for _ in range(100):
        copylib.scale(x)
    said("loop_grew_kib", rss_kib() - before)
    assert copylib.scale(torch.ones(2, 2)).sum() == 8  # a configuration of its own
    for _ in range(3):
        assert copylib.count(x) == 64 * 1024  # no case (it returns no tensor): said once


def test_spends_the_tests_copy_budget():
    for extra in range(3):  # three configurations of 6 MiB each: the third is over the test's 16 MiB
        assert copylib.total(torch.ones(6 * MIB // 4 + extra)) > 0
