"""Pause Python's cyclic garbage collector around allocation-heavy steps.

Reading a snapshot of thousands of cases and turning it into row payloads
allocates a few hundred thousand short-lived containers (parsed JSON, model
objects, views). With the collector running, many of them live long enough
to be promoted to the oldest generation, and every full collection then
walks the whole build's heap again: on a 5,000-row page that doubled the
time the page adds to an HTML build. None of these objects form reference
cycles, so with the collector paused they are freed by reference counting
as soon as the step ends; what survives (the payloads on the doctree) is
collected normally afterwards.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the collector off; leave it as it was (nested use is fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
