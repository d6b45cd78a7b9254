"""Each step leaves torch's global module hooks as it found them.

``torch.nn.modules.module`` keeps process-wide hook registries (``_global_forward_hooks``,
``_global_buffer_registration_hooks``, ...). A step that fails half way can leave an entry
behind, and every later step in the same worker then runs with it: torch 2.9.1's AOTAutograd
registers a buffer-registration hook for a non-strict ``torch.export`` and removes it only when
tracing succeeds, so after one case's export failed, ``torch.compile`` of every later case that
registers a buffer (kornia's Lie groups build modules as they run) broke its graph on that hook.
The result of a step must not depend on which case the worker measured before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _registries() -> dict[str, dict[Any, Any]]:
    import torch.nn.modules.module as module

    return {name: value for name, value in vars(module).items()
            if name.startswith("_global_") and isinstance(value, dict)}


@contextmanager
def global_hooks_kept() -> Iterator[None]:
    """Run a step; afterwards drop every global module hook it registered and did not remove (and put back
    any it removed)."""
    saved = {name: list(value.items()) for name, value in _registries().items()}
    try:
        yield
    finally:
        for name, current in _registries().items():
            before = saved.get(name, [])
            if list(current.items()) != before:
                current.clear()  # the same dict object: torch's functions read it by its module-level name
                current.update(before)
