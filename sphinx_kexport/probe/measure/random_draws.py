"""torch.compile drawing a random operator's numbers as eager draws them, so that its outputs can be compared.

Inductor generates its own random numbers (its Philox kernels), so a compiled random operator and eager
draw different numbers under the same seed, and an operator whose output *size* is random (an edge dropout,
``x[torch.rand(n) > 0.5]``) returns a different size. With inductor's ``fallback_random`` it calls torch's
own random operators instead. Measured on torch 2.13 (CPU), after ``torch.manual_seed`` as the probe seeds
each call (case_run.seeded): ``torch.rand``, ``torch.randn_like``, ``torch.randint``, ``torch.bernoulli``,
``F.dropout(training=True)`` and ``x[torch.rand(n) > 0.5]`` give eager's exact values, with the ordinary
compile and with ``fullgraph=True``, where without it every one differs (the masked one in size too);
``torch.randperm`` falls back to torch's operator either way. The setting breaks no graph and adds none: the
masked read breaks the ordinary compile's graph once (a data-dependent size) with or without it.

So for a random operator (``check=False``) the probe runs every torch.compile of it under
:func:`drawing_as_eager` and compares the compiled outputs in full (:func:`active` tells the judge); ONNX
(onnxruntime draws from its own generator) and torch.export are held only to what cannot differ by chance:
output count, rank, dtype and finiteness (compare_outputs.check_random).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any, Callable, TypeVar

_active = 0  # how many drawing_as_eager blocks are open (a method inside another's is still inside)

Method = TypeVar("Method", bound=Callable[..., Any])


@contextlib.contextmanager
def drawing_as_eager(random: bool = True) -> Iterator[None]:
    """Inside the block, torch.compile's inductor calls torch's random operators (``fallback_random``), so a
    compiled call seeded as eager was draws eager's numbers; ``random=False`` leaves everything as it is."""
    global _active
    if not random:
        yield
        return
    import torch._inductor.config as inductor_config

    with inductor_config.patch(fallback_random=True):
        _active += 1
        try:
            yield
        finally:
            _active -= 1


def active() -> bool:
    """Whether the outputs being judged were drawn as eager draws them (inside :func:`drawing_as_eager`)."""
    return _active > 0


def compiled_as_eager_draws(method: Method) -> Method:
    """A path's compile method (``self.spec`` is the case) run under :func:`drawing_as_eager` when the case is
    a random operator: a decorator, so the method's body stays as it is written."""

    @functools.wraps(method)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        with drawing_as_eager(random=not self.spec.check):
            return method(self, *args, **kwargs)

    return wrapped  # type: ignore[return-value]
