"""Run one docstring example as pytest's doctest run would, recording the library calls its own code makes
(:mod:`.recording`): no network, a time limit, a scratch directory, a fixed seed, output swallowed."""

from __future__ import annotations

import contextlib
import doctest
import io
import sys
from dataclasses import dataclass, field
from typing import Any

from ...base.network import is_download_blocked, network_blocked
from ..recording.recording import EXAMPLE_FILE_PREFIX, RECORDER, Call, first_line, seed_everything
from ..sandbox import ExampleTimeout, scratch_directory, time_limit

EXAMPLE_SEED = 0


@dataclass
class ExampleRun:
    calls: list[Call] = field(default_factory=list)
    failure: str = ""  # "", "raised", "download", "time limit"
    detail: str = ""


def run_example(test: Any, globs: dict[str, Any], limit: float) -> ExampleRun:
    """Run ``test`` (a doctest.DocTest) like pytest's doctest run would, recording the calls it makes.

    Expected exceptions (a ``Traceback`` in the example's output) are part of
    the example; any other exception ends it. Printed output is swallowed.
    """
    run = ExampleRun()
    RECORDER.calls, RECORDER.statement = run.calls, 0
    RECORDER.built.clear()
    seed_everything(EXAMPLE_SEED)
    saved_hook = sys.displayhook
    sys.displayhook = lambda value: None  # doctest would print each expression's repr; nothing reads it here
    try:
        with contextlib.redirect_stdout(io.StringIO()), network_blocked(), scratch_directory(), time_limit(limit):
            for index, example in enumerate(test.examples):
                if example.options.get(doctest.SKIP):
                    continue  # `# doctest: +SKIP`: pytest does not run it either
                RECORDER.statement = index
                try:
                    code = compile(example.source, f"{EXAMPLE_FILE_PREFIX}{test.name}[{index}]>", "single",
                                   dont_inherit=True)
                    exec(code, globs)
                except ExampleTimeout as exc:
                    run.failure, run.detail = "time limit", f"{exc} (at >>> {example.source.strip()[:80]})"
                    break
                except Exception as exc:
                    if is_download_blocked(exc):
                        run.failure, run.detail = "download", first_line(exc)
                        break
                    if example.exc_msg is not None:
                        continue  # the example shows this exception on purpose
                    run.failure = "raised"
                    run.detail = f"{first_line(exc)} (at >>> {example.source.strip().splitlines()[0][:80]})"
                    break
    except ExampleTimeout as exc:  # the alarm fired between two statements
        run.failure, run.detail = "time limit", str(exc)
    finally:
        sys.displayhook = saved_hook
        RECORDER.calls = None
        RECORDER.built.clear()
    return run
