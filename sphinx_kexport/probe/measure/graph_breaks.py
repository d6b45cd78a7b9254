"""What dynamo really did with a case: its first graph break, the graphs it compiled, the breaks it recorded.

``torch._dynamo.explain`` alone is not the truth: when dynamo cannot resume
after a break (inside a ``try`` block or a loop) it skips the whole frame,
compiles no graph, and explain reports no break at all. So the probe follows
the compile-first workflow: ``fullgraph=True`` first (its error is the first
break), then the ordinary compile, whose breaks are read from dynamo's own
counters (``graph_break``: breaks it resumed after; ``unimplemented``:
unsupported calls, including the ones that made it skip a frame).

Measured on torch 2.13: ``fullgraph=True`` captures ``.item()`` as a symbol
where the ordinary compile breaks, so when fullgraph passes but the ordinary
compile breaks, a pass under ``torch._dynamo.error_on_graph_break`` (the
ordinary compile's rules, stopping at the first break) locates the break.
Both locating passes use the ``eager`` backend: they trace, they do not run
inductor, so they cost a trace each, not a compile.

That dynamo captures a call whole is not that ``torch.compile(fn, fullgraph=True)``
works: inductor may reject the captured graph (on torch 2.13 an integer
computed from a ``.item()`` symbol and used as a size raises
``GuardOnDataDependentSymNode`` while lowering). So before the probe tells a
user "fullgraph=True compiles it", :func:`default_backend_whole` compiles it
with the default backend, once, and only in that case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from .explain import exception_chain, explain_exception, explain_text
from .locate import FILE_LINE

# torch.compile's backend that runs dynamo's graph as Python (torch's name for it, not the snapshot's stage)
TRACE_ONLY_BACKEND = "eager"

# dynamo repeats one break once per enclosing frame it traces (the probe's wrapper adds two);
# the reason text is the same, so breaks are counted by distinct reason
_RECORDS = ("graph_break", "unimplemented")
# ... except the names of the frame's locals in it: torch 2.13 records a branch on an input passed straight
# through (kornia's intrinsics_like: `if focal <= 0`) as "l_in0_: graph input" in the wrapper's frame and
# "l_args_0_" in the next, two records of one break. A break is its kind and the last source line it names.


@dataclass
class CompileRecord:
    """One ordinary ``torch.compile`` run, as dynamo's counters saw it."""

    graphs: int = 0  # graphs dynamo compiled
    skipped_frames: int = 0  # frames it gave up on, which run eagerly
    messages: list[str] = field(default_factory=list)  # distinct break/unsupported messages, first seen first
    recorded_breaks: int = 0  # distinct messages of dynamo's own graph-break counter


def first_break(model: torch.nn.Module, inputs: tuple, run: Callable[[Callable[[], Any]], Any]) -> tuple[
        BaseException | None, bool]:
    """(the first break's exception or None, whether ``fullgraph=True`` captured the whole call)."""
    torch._dynamo.reset()
    try:
        run(lambda: torch.compile(model, fullgraph=True, backend=TRACE_ONLY_BACKEND)(*inputs))
    except Exception as exc:
        return exc, False
    finally:
        torch._dynamo.reset()
    return None, True


def default_backend_whole(model: torch.nn.Module, inputs: tuple,
                          run: Callable[[Callable[[], Any]], Any]) -> BaseException | None:
    """None when ``torch.compile(model, fullgraph=True)`` with the default backend (inductor) compiles and
    runs the call, else its exception. An inductor compile: call it only where the answer is shown."""
    torch._dynamo.reset()
    try:
        run(lambda: torch.compile(model, fullgraph=True)(*inputs))
    except Exception as exc:
        return exc
    finally:
        torch._dynamo.reset()
    return None


def locate_ordinary_break(model: torch.nn.Module, inputs: tuple,
                          run: Callable[[Callable[[], Any]], Any]) -> BaseException | None:
    """The ordinary compile's first break, raised where it happens (None when it does not break)."""
    torch._dynamo.reset()
    try:
        with torch._dynamo.error_on_graph_break(True):
            run(lambda: torch.compile(model, backend=TRACE_ONLY_BACKEND)(*inputs))
    except Exception as exc:
        return exc
    finally:
        torch._dynamo.reset()
    return None


def start_recording() -> None:
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()


def recorded(raised_compiling: bool = False) -> CompileRecord:
    """What the counters hold since :func:`start_recording`. ``raised_compiling``: the compile raised out
    of a frame's compile (inductor or dynamo failing, not the compiled code running); that frame is
    counted in ``total`` and not in ``ok``, but it failed, dynamo did not skip it."""
    counters = torch._dynamo.utils.counters
    messages: list[str] = []
    for record in _RECORDS:
        for message in counters[record]:
            if message not in messages:
                messages.append(message)
    frames = counters["frames"]
    not_ok = int(frames["total"]) - int(frames["ok"]) - (1 if raised_compiling else 0)
    breaks = {break_key(message) for message in counters["graph_break"]}
    return CompileRecord(graphs=int(counters["stats"]["unique_graphs"]), skipped_frames=max(0, not_ok),
                         messages=messages, recorded_breaks=len(breaks))


def break_key(message: str) -> tuple[str, ...]:
    """One graph break however many frames dynamo recorded it in: its first line (the kind of break) and the
    last source line it names, where it happened (torch 2.9.1 lists the frames' stack, outermost first, from
    the frame that was being traced, so the same break in an inner frame names fewer outer lines); a message
    that names no line is its own key."""
    lines = FILE_LINE.findall(message)
    if not lines:
        return (message,)
    file, line = lines[-1]
    return (message.strip().splitlines()[0], f"{file}:{line}")


def is_break(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a break dynamo records: the soft failures (``Unsupported``, ``UserError``) that
    the ordinary compile turns into a graph break or a skipped frame. Anything else (an inductor error, a
    dynamo internal error) fails the compile and breaks nothing."""
    from torch._dynamo.exc import Unsupported, UserError

    return exc is not None and any(isinstance(e, (Unsupported, UserError)) for e in exception_chain(exc))


def reason_of(exc: BaseException) -> str:
    """A break in words; a dynamo ``Unsupported`` by its message, as its counters record it."""
    message = getattr(exc, "msg", None)
    return explain_text(message) if isinstance(message, str) and message.strip() else explain_exception(exc)


def reasons(first: BaseException | None, record: CompileRecord) -> list[str]:
    """Distinct reasons in words, the first break's first."""
    texts = [reason_of(first)] if is_break(first) else []
    for message in record.messages:
        text = explain_text(message)
        if text and text not in texts:
            texts.append(text)
    return texts


def count(first: BaseException | None, record: CompileRecord) -> int:
    """Graph breaks: at least the graphs minus one, at least one per distinct break dynamo's graph-break
    counter recorded, and at least one when dynamo skipped a frame or fullgraph=True stopped at a break.
    Its "unimplemented" counter is not counted: it records the same break again once per frame that
    was being traced (piq's GMSDLoss: one data-dependent branch, two messages, two breaks said where
    explain() says none). (A function with no tensor operation compiles no graph and breaks nothing; a
    backend that fails breaks nothing.)"""
    breaks = max(record.graphs - 1, record.recorded_breaks)
    if is_break(first) or record.skipped_frames:
        breaks = max(breaks, 1)
    return breaks
