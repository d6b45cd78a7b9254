"""Cases that run long, for the time-limit tests (their own module so other runs need no short limit).

* ``wait_forever`` never returns, even eagerly;
* ``slow_under_dynamo`` is quick eagerly, exported and in ONNX, but under torch.compile it graph-breaks on a
  ``time.sleep`` of SLOW_COMPILE seconds (dynamo takes the ``is_dynamo_compiling()`` branch while tracing);
* ``five_seconds_each`` sleeps EACH_CALL seconds on every call (the eager run, and once in each path): each
  step stays under the tests' limit of 18 s, the whole case (four sleeps and more) does not.
"""

import time

import torch

from sphinx_kexport.probe import case

SLOW_COMPILE = 120
EACH_CALL = 5


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


CASES = [
    case("wait_forever", wait_forever, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("quick", quick, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("slow_under_dynamo", slow_under_dynamo, [torch.rand(2, 2)], package="probe_cases.hang"),
    case("five_seconds_each", five_seconds_each, [torch.rand(2, 2)], package="probe_cases.hang"),
]
