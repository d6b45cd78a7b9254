"""A library's test suite run in shards: short-lived child processes, ``jobs`` at once.

One test run in a row keeps every test module, every library cache and every
recorded case in one process to the end: e3nn's o3 tests took 5.5 GB and one core
for ten minutes that way. Here a child collects the tests (pytest's order, as one run
in a row collects them), the tests are dealt out to ``jobs x SHARDS_PER_JOB`` shards
in turn (a slow parametrised test, e3nn's 16 ``test_normalized``, spreads over all of
them; a small suite, or the tests a rerun runs again, to fewer: each shard gets
``MIN_TESTS_PER_SHARD`` tests at least), and each shard runs in a fresh child process
that ends when its tests do, giving its memory back. A shard sends each test's calls back as candidates
(``suite.Take``); the parent then selects the cases across the whole suite in
pytest's order (``suite._Selector``), so that the cases, their names and their
inputs are the ones a run in a row keeps. The children compute with the parent's
number of threads, as a run in a row would.

The children are spawned: a fork of a process that has run torch's thread pools can
hang. Standard library only, besides what the child entry imports.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle
import threading
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable

from ...base.lifetime import die_with_parent
from ..library import DiscoveryError

SHARDS_PER_JOB = 2  # more shards balance slow tests better; each pays one start-up and one collection
# the fewest tests a shard is given: a shard's start-up (torch, pytest, the library, the tests' imports) costs
# seconds of CPU, more than a small suite's tests, so a small suite, or the few test files a rerun runs again,
# goes to fewer shards (benchmarks/bench_discovery.py --tests: a 34-test fixture suite at --jobs 2 took half
# the CPU seconds of the four shards it had before)
MIN_TESTS_PER_SHARD = 40
_SETTINGS = {"jobs": 1}


def set_suite_jobs(jobs: int) -> None:
    """How many shards of a test suite run at once in this process's later discoveries (1: the tests run in
    this process, in a row). The probe sets the run's ``jobs``; ``discover --tests`` its ``--jobs``."""
    _SETTINGS["jobs"] = max(1, int(jobs))


def suite_jobs() -> int:
    return _SETTINGS["jobs"]


def shard_count(tests: int, jobs: int) -> int:
    """How many shards ``tests`` tests run in, ``jobs`` at once: ``jobs x SHARDS_PER_JOB``, fewer when that would
    give a shard fewer than ``MIN_TESTS_PER_SHARD`` tests (at least one)."""
    return max(1, min(jobs * SHARDS_PER_JOB, -(-tests // MIN_TESTS_PER_SHARD)))


def deal(nodes: list[str], shards: int) -> list[list[str]]:
    """The tests dealt out in turn, as cards: shard ``i`` gets tests ``i``, ``i + shards``, ... (neighbours,
    often the parametrisations of one slow test, go to different shards). No empty shard."""
    shards = max(1, min(shards, len(nodes)))
    return [nodes[i::shards] for i in range(shards)]


@dataclass(frozen=True)
class Line:
    """What a shard says of a test as it ends, read as a report by progress.line (the parent prints it): plain
    data, sent while the recorder still stands in for the library's callables (a case would not pickle)."""

    ref: str
    cases: list[str]  # the names of the cases its shard found
    skip: str
    seconds: float
    from_tests = True


_QUEUE: dict[str, Any] = {"queue": None}


def _child_start(queue: Any, threads: int) -> None:
    die_with_parent()
    _QUEUE["queue"] = queue
    import torch

    torch.set_num_threads(threads)  # as the parent computes: the same float sums, the same inputs


def tell_parent(done: int, total: int, report: Any, seconds: float) -> None:
    """A shard's ``on_test``: the test's line goes to the parent, which numbers it among all shards' tests."""
    queue = _QUEUE["queue"]
    if queue is not None:
        queue.put(Line(report.ref, [spec.name for spec in report.cases], report.skip, seconds))


def run_in_children(entry: Callable[..., Any], calls: list[tuple[Any, ...]], jobs: int, total: int,
                    on_test: Callable[[int, int, Any, float], None] | None) -> list[Any]:
    """``entry(*args)`` for each args of ``calls``, each in a fresh child process, ``jobs`` at once; their
    results in the order of ``calls``. ``on_test(done, total, report, seconds)`` is called here for each test
    a child reports (:func:`tell_parent`). DiscoveryError when a child dies."""
    import torch

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    printer = threading.Thread(target=_print_lines, args=(queue, total, on_test), daemon=True)
    printer.start()
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=max(1, min(jobs, len(calls))), mp_context=context,
                                                  max_tasks_per_child=1, initializer=_child_start,
                                                  initargs=(queue, torch.get_num_threads()))
    try:
        futures = [pool.submit(_in_bytes, entry, args) for args in calls]
        results = []
        for index, future in enumerate(futures):
            try:
                results.append(pickle.loads(future.result()))
            except BrokenProcessPool:
                raise DiscoveryError(
                    f"a child process running shard {index + 1} of {len(calls)} of the tests died (killed for "
                    "memory?); run with fewer jobs (--jobs 1 runs the tests in one process, in a row)") from None
        return results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        queue.put(None)
        printer.join()


def _in_bytes(entry: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    """``entry(*args)`` pickled here by the plain pickler: multiprocessing's would hand each tensor over through
    shared memory that this process must outlive, and it ends with its task."""
    return pickle.dumps(entry(*args))


def _print_lines(queue: Any, total: int, on_test: Callable[[int, int, Any, float], None] | None) -> None:
    done = 0
    while True:
        said = queue.get()
        if said is None:
            return
        done += 1
        if on_test is not None:
            try:
                on_test(done, total, said, said.seconds)
            except Exception:  # a progress line must not stop the run
                pass

