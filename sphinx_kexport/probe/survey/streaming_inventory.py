"""The inventory built in a thread while the runner already measures (a survey with ``library`` set).

The thread feeds the runner: each item is ``(cases, final)`` (``final``: no case comes after these), then
None once the inventory is complete; an exception the building raises goes on the feed instead, and the
runner raises it in its own thread.
"""

from __future__ import annotations

import queue
import threading
from typing import Callable

from ..cases.inventory import InventoryCase


class StreamingInventory:
    def __init__(self, build: Callable[[StreamingInventory], None]):
        """``build(stream)`` builds the inventory (in the thread), handing cases over as they become final."""
        self.feed: queue.Queue = queue.Queue()
        self._stoppers: list[Callable[[], None]] = []  # how to stop the inventory's child processes
        self._thread = threading.Thread(target=self._run, args=(build,), name="kexport-inventory", daemon=True)

    def start(self) -> queue.Queue:
        """Start building; gives the feed."""
        self._thread.start()
        return self.feed

    def hand_over(self, cases: list[InventoryCase], final: bool = False) -> None:
        self.feed.put((cases, final))

    def stoppable(self, stop: Callable[[], None]) -> None:
        """The building's children are stopped by ``stop`` (called when the survey stops before they end)."""
        self._stoppers.append(stop)

    def stop(self) -> None:
        """Stop the building if it still runs (the runner failed or was interrupted), and wait for its thread."""
        if self._thread.is_alive():
            for stop in self._stoppers:
                stop()
            self._thread.join(timeout=30)

    def _run(self, build: Callable[[StreamingInventory], None]) -> None:
        try:
            build(self)
            self.feed.put(None)
        except BaseException as exc:  # noqa: BLE001 - raised again in the runner's thread
            self.feed.put(exc)
