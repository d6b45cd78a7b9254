"""Tasks that arrive while the pool runs (a streaming inventory hands over cases as their modules come in)."""

from __future__ import annotations

import queue
from typing import Any, Callable

from .task import Task

FEED_POLL = 0.5  # seconds between looks at the feed while tasks may still arrive


class Feed:
    """Each item put on ``source`` goes through ``on_fed`` (in the reader's thread) and gives tasks; an
    exception put on it is raised in the reader; None says no more will come (the feed is then closed)."""

    def __init__(self, source: queue.Queue | None = None,
                 on_fed: Callable[[Any], list[Task]] = lambda item: item):
        self.source = source
        self.on_fed = on_fed

    @property
    def open(self) -> bool:
        return self.source is not None

    def close(self) -> None:
        self.source = None

    def take(self, block: bool) -> list[Task]:
        """The tasks that arrived; with ``block``, wait (briefly) for something first."""
        tasks: list[Task] = []
        while self.source is not None:
            try:
                item = self.source.get(block=block, timeout=FEED_POLL if block else None)
            except queue.Empty:
                break
            block = False
            if item is None:
                self.source = None
            elif isinstance(item, BaseException):
                raise item
            else:
                tasks.extend(self.on_fed(item))
        return tasks
