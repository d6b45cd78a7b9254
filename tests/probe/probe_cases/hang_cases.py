"""A case that never returns, for the --timeout test (its own module so other runs need no short timeout)."""

import time

import torch

from sphinx_kexport.probe import case


def wait_forever(x):
    time.sleep(3600)
    return x


def quick(x):
    return x + 1


CASES = [
    case("wait_forever", wait_forever, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("quick", quick, [torch.rand(2, 2)], package="probe_cases.hang"),
]
