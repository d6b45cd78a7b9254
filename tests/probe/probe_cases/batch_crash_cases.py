"""An operator that crashes the process at batch 3 only, for the dynamic-batch pass's crash handling
(its own module so the other surveys need not lose a worker to it)."""

import ctypes

import torch

from sphinx_kexport.probe import case


def crash_at_batch_3(x):
    # fine at the registered batch (1) and the traced one (2); a native crash (SIGSEGV) at 3
    if not torch.compiler.is_compiling() and x.shape[0] == 3:
        ctypes.string_at(0)
    return x * 2


CASES = [case("crash_at_batch_3", crash_at_batch_3, [torch.rand(1, 4)], package="probe_cases.batch_crash")]
