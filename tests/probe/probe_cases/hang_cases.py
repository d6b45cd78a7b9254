"""Cases that run long, for the time-limit tests (their own module so other runs need no short limit).

* ``wait_forever`` never returns, even eagerly;
* ``slow_under_dynamo`` is quick eagerly, exported and in ONNX, but under torch.compile it graph-breaks on a
  ``time.sleep`` of SLOW_COMPILE seconds (dynamo takes the ``is_dynamo_compiling()`` branch while tracing);
* ``five_seconds_each`` sleeps EACH_CALL seconds on every call (the eager run, and once in each path): each
  step stays under the tests' limit of 18 s, the whole case (four sleeps and more) does not;
* ``lowering_forever`` is quick eagerly, exported and in ONNX, and dynamo captures it whole, but inductor
  never finishes turning it into code: each step of the recurrence reads both values of the step before,
  and inductor inlines them into one expression that doubles with each step (as kornia's
  ``get_gaussian_discrete_kernel1d(5, 1.5)`` does with its Bessel recurrence).
"""

import time

import torch

from sphinx_kexport.probe import case

SLOW_COMPILE = 120
EACH_CALL = 5
RECURRENCE_STEPS = 24  # 8 already took inductor over a minute here


def wait_forever(x):
    time.sleep(3600)
    return x


def quick(x):
    return x + 1


def slow_under_dynamo(x):
    if torch.compiler.is_dynamo_compiling():
        time.sleep(SLOW_COMPILE)
    return x * 2


def five_seconds_each(x):
    time.sleep(EACH_CALL)
    return x - 1


def lowering_forever(x):
    a, b = x, x * 2
    for _ in range(RECURRENCE_STEPS):
        a, b = torch.where(a > b, a * 0.5, b), torch.where(b > a, b * 0.5, a)
    return a + b


CASES = [
    case("wait_forever", wait_forever, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("quick", quick, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("slow_under_dynamo", slow_under_dynamo, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("five_seconds_each", five_seconds_each, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("lowering_forever", lowering_forever, [torch.rand(2, 2)], package="probe_cases.hang"),
]
