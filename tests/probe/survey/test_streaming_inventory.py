"""The survey's streaming inventory (survey/streaming_inventory.py): what its thread hands over reaches the feed
in order and ends with None, an exception in it reaches the runner's thread, and stopping it stops the building's
children, also when it never started."""

from __future__ import annotations

import threading

from sphinx_kexport.probe.survey.streaming_inventory import StreamingInventory


def _drained(feed) -> list:
    items = [feed.get(timeout=10)]
    while items[-1] is not None and not isinstance(items[-1], BaseException):
        items.append(feed.get(timeout=10))
    return items


def test_what_the_thread_hands_over_reaches_the_feed_in_order_then_none():
    def build(stream: StreamingInventory) -> None:
        stream.hand_over(["hand_written"])
        stream.hand_over(["hand_written", "discovered"], final=True)

    stream = StreamingInventory(build)
    assert _drained(stream.start()) == [(["hand_written"], False), (["hand_written", "discovered"], True), None]
    stream.stop()


def test_an_exception_in_the_building_goes_on_the_feed_instead_of_none():
    def build(stream: StreamingInventory) -> None:
        stream.hand_over(["first"])
        raise ValueError("a mistake in a case module")

    items = _drained(StreamingInventory(build).start())
    assert items[0] == (["first"], False) and isinstance(items[1], ValueError) and len(items) == 2


def test_stopping_stops_the_children_of_a_building_that_still_runs():
    registered, release, stopped = threading.Event(), threading.Event(), []

    def build(stream: StreamingInventory) -> None:
        stream.stoppable(lambda: (stopped.append(True), release.set()))
        registered.set()
        release.wait(10)  # as a child's module would, until it is killed

    stream = StreamingInventory(build)
    StreamingInventory(build).stop()  # never started: nothing to stop, no error
    stream.start()
    assert registered.wait(10)
    stream.stop()
    assert stopped == [True] and _drained(stream.feed) == [None]
