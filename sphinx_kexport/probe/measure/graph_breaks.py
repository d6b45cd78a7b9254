"""What dynamo really did with a case: its first graph break, the graphs it compiled, the breaks it recorded.

``torch._dynamo.explain`` alone is not the truth: when dynamo cannot resume
after a break (inside a ``try`` block or a loop) it skips the whole frame,
compiles no graph, and explain reports no break at all. So the probe follows
the compile-first workflow: ``fullgraph=True`` first (its error is the first
break), then the ordinary compile, whose breaks are read from dynamo's own
counters (``graph_break``: breaks it resumed after; ``unimplemented``:
unsupported calls, including the ones that made it skip a frame).

The status follows ``fullgraph=True`` (the compile-first criterion): when dynamo captures the call whole,
``torch.compile(fn, fullgraph=True)`` with the default backend compiles it, and its outputs are judged. The
default compile's breaks are still recorded, as a fact: measured on torch 2.13, ``fullgraph=True`` captures
``.item()`` as a symbol where the default compile breaks, and
``torch._dynamo.config.capture_scalar_outputs = True`` removes that break there
(:func:`setting_removing_breaks` finds the setting, traced only). When fullgraph=True fails, a pass under
``torch._dynamo.error_on_graph_break`` (the default compile's rules, stopping at the first break) locates the
break where fullgraph=True found none. The tracing passes use the ``eager`` backend: they cost a trace each,
not an inductor compile. The status's own compile (``fullgraph=True`` with inductor) is also the first-break
pass: where dynamo stops before handing inductor a graph, its error is the first break; only where inductor
or the compiled call fails does a trace-only ``fullgraph=True`` pass say whether dynamo captured the call
whole (:func:`first_break`). Where it compiles one graph without data-dependent values, that graph tells the
default compile's record (:func:`default_record_of`) and the trace-only default compile is not run.

A call that dynamo does not trace but hands to Python (a function wrapped in ``torch.compiler.disable``, one
dynamo skips on purpose such as ``GraphModule.__new__``, a builtin it does not know) is a *skipped function*:
``fullgraph=True`` fails at it, yet it splits the graph only when traced code lies on both sides of it, and then
the graphs count that break. Measured on torch 2.13: a function that calls a disabled helper first and
multiplies after compiles one graph, ``explain()`` reports 0 breaks, and dynamo's graph-break counter records
one; so a skipped function is listed by name (:attr:`CompileRecord.skipped`) and not counted as a break.

That dynamo captures a call whole is not that ``torch.compile(fn, fullgraph=True)``
works: inductor may reject the captured graph (on torch 2.13 an integer
computed from a ``.item()`` symbol and used as a size raises
``GuardOnDataDependentSymNode`` while lowering). There fullgraph=True fails, and the default compile decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import re

import torch

from .capture import Handed, compiled
from .explain import Explained, exception_chain, explain, explain_message
from .locate import FILE_LINE

# torch.compile's backend that runs dynamo's graph as Python (torch's name for it, not the snapshot's stage)
TRACE_ONLY_BACKEND = "eager"

# dynamo repeats one break once per enclosing frame it traces (the probe's wrapper adds two);
# the reason text is the same, so breaks are counted by distinct reason
_RECORDS = ("graph_break", "unimplemented")
# ... except the names of the frame's locals in it: torch 2.13 records a branch on an input passed straight
# through (kornia's intrinsics_like: `if focal <= 0`) as "l_in0_: graph input" in the wrapper's frame and
# "l_args_0_" in the next, two records of one break. A break is its kind and the last source line it names.


# dynamo's graph-break types for a call it hands to Python instead of tracing, and how each names the function
_SKIP_TYPE = re.compile(r"^\s*(?:Skip calling `torch\.compiler\.disable\(\)`d function|"
                        r"Attempted to (?:call|inline) function marked as skipped)")
_SKIP_NAMES = (
    (re.compile(r"Skip calling function `<function (\S+?)(?: at 0x[0-9a-fA-F]+)?>`"), "torch.compiler.disable"),
    (re.compile(r"intentionally marked that the function `([^`]+?)`"), "dynamo skips it on purpose"),
    (re.compile(r"trace the builtin `([^`]+?)\.?`"), "a builtin dynamo does not trace"),
    (re.compile(r"(?:builtin|function) `<?(?:function )?([^`\s>]+?)\.?(?: at 0x[0-9a-fA-F]+)?>?`"), "dynamo skips it"),
)


def skipped_function(message: str) -> str:
    """"helper (torch.compiler.disable)" for a dynamo message about a call it skipped, else ""."""
    if not _SKIP_TYPE.match(message):
        return ""
    for pattern, why in _SKIP_NAMES:
        match = pattern.search(message)
        if match:
            return f"{match.group(1)} ({why})"
    return "a function (dynamo names none)"


def _skip_of(exc: BaseException | None) -> str:
    message = getattr(exc, "msg", None) if exc is not None else None
    return skipped_function(message) if isinstance(message, str) else ""


@dataclass
class CompileRecord:
    """One ordinary ``torch.compile`` run, as dynamo's counters saw it."""

    graphs: int = 0  # graphs dynamo compiled
    skipped_frames: int = 0  # frames it gave up on, which run eagerly
    messages: list[str] = field(default_factory=list)  # distinct break/unsupported messages, first seen first
    recorded_breaks: int = 0  # distinct messages of dynamo's own graph-break counter, skipped functions aside
    skipped: list[str] = field(default_factory=list)  # the functions dynamo skipped, "name (why)", first seen first


def first_break(model: torch.nn.Module, inputs: tuple, run: Callable[[Callable[[], Any]], Any]) -> tuple[
        BaseException | None, bool]:
    """(the first break's exception or None, whether ``fullgraph=True`` captured the whole call)."""
    torch._dynamo.reset()
    try:
        run(lambda: compiled(model, fullgraph=True, backend=TRACE_ONLY_BACKEND)(*inputs))
    except Exception as exc:
        return exc, False
    finally:
        torch._dynamo.reset()
    return None, True


def default_compile_traced(model: torch.nn.Module, inputs: tuple,
                           run: Callable[[Callable[[], Any]], Any]) -> CompileRecord:
    """What the default ``torch.compile`` (no fullgraph) does with the call, traced only (eager backend: breaks
    are dynamo's, the backend adds none): its graphs, breaks and skipped functions. For a call that
    ``fullgraph=True`` captures whole, whose status that compile decides."""
    start_recording()
    try:
        run(lambda: compiled(model, fullgraph=False, backend=TRACE_ONLY_BACKEND)(*inputs))
    except Exception:  # a trace-only compile that raises: what the counters hold up to there
        return recorded(raised_compiling=True)
    finally:
        torch._dynamo.reset()
    return recorded()


def default_record_of(handed: Handed) -> CompileRecord | None:
    """The default compile's record, told by what ``fullgraph=True`` handed inductor, without tracing again;
    None where only a trace tells it.

    One graph with operators in it and no data-dependent value: dynamo traced the whole call without one
    point at which it would break, so the default compile (the same tracer, which breaks only where
    ``fullgraph=True`` raises, or where fullgraph=True turns a tensor's data into a symbol: ``.item()``, an
    operator whose output size depends on the data) compiles that same one graph, breaks nothing and
    skips nothing (torch 2.13's ``one_graph`` checks in dynamo, read for this; the probe's fixtures and a
    sample of kornia compared side by side, benchmarks/bench_compile_count.py)."""
    if handed.graphs == 1 and handed.calls and not handed.data_dependent:
        return CompileRecord(graphs=1)
    return None


# dynamo settings that make the default compile capture what fullgraph=True captures (torch 2.13: a tensor's
# .item() becomes a symbol, an operator whose output shape depends on the data is traced), tried alone, then together
BREAK_SETTINGS = (("capture_scalar_outputs",), ("capture_dynamic_output_shape_ops",),
                  ("capture_scalar_outputs", "capture_dynamic_output_shape_ops"))


def setting_removing_breaks(model: torch.nn.Module, inputs: tuple,
                            run: Callable[[Callable[[], Any]], Any]) -> list[str]:
    """The ``torch._dynamo.config`` flags (each set True) under which the default compile of the call has no
    graph break and skips nothing, traced only; [] when none of :data:`BREAK_SETTINGS` does."""
    for flags in BREAK_SETTINGS:
        with torch._dynamo.config.patch({flag: True for flag in flags}):
            record = default_compile_traced(model, inputs, run)
        if record.graphs == 1 and not (record.recorded_breaks or record.skipped or record.skipped_frames):
            return list(flags)
    return []


def setting_words(flags: list[str]) -> str:
    """"torch._dynamo.config.capture_scalar_outputs = True" for the flags of :func:`setting_removing_breaks`."""
    return " and ".join(f"torch._dynamo.config.{flag} = True" for flag in flags)


def default_breaks_summary(breaks: int, reasons: list[str], skipped: list[str], graphs: int,
                           flags: list[str]) -> str:
    """The detail of a call that ``fullgraph=True`` compiles as one graph while the default compile breaks it."""
    text = "torch.compile(fn, fullgraph=True) compiles it as one graph; "
    if breaks and graphs == 0:
        text += "the default torch.compile compiles no graph: the whole function runs eagerly"
    elif breaks:
        text += f"the default torch.compile breaks it at {breaks} graph break{'s' if breaks > 1 else ''}"
    else:
        text += f"the default torch.compile skips {', '.join(skipped)}"
    if breaks and reasons:
        text += f" ({reasons[0]})"
    if flags:
        text += f"; {setting_words(flags)} removes {'them' if breaks > 1 else 'it'} there too"
    return text


def locate_ordinary_break(model: torch.nn.Module, inputs: tuple,
                          run: Callable[[Callable[[], Any]], Any]) -> BaseException | None:
    """The ordinary compile's first break, raised where it happens (None when it does not break)."""
    torch._dynamo.reset()
    try:
        with torch._dynamo.error_on_graph_break(True):
            run(lambda: compiled(model, fullgraph=False, backend=TRACE_ONLY_BACKEND)(*inputs))
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
    counted in ``total`` and not in ``ok``, but it failed, dynamo did not skip it. There a skipped function
    counts as a break too: the graphs after the failure were never built, so whether the call split the
    graph cannot be told (a break, as it was counted before skipped functions were told apart)."""
    counters = torch._dynamo.utils.counters
    messages: list[str] = []
    skipped: list[str] = []
    for record in _RECORDS:
        for message in counters[record]:
            name = skipped_function(message)
            if name and name not in skipped:
                skipped.append(name)
            if (raised_compiling or not name) and message not in messages:
                messages.append(message)
    frames = counters["frames"]
    not_ok = int(frames["total"]) - int(frames["ok"]) - (1 if raised_compiling else 0)
    breaks = {break_key(message) for message in counters["graph_break"]
              if raised_compiling or not skipped_function(message)}
    return CompileRecord(graphs=int(counters["stats"]["unique_graphs"]), skipped_frames=max(0, not_ok),
                         messages=messages, recorded_breaks=len(breaks), skipped=skipped)


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


def explained_break(exc: BaseException) -> Explained:
    """A break in words, with its cause; a dynamo ``Unsupported`` by its message, as its counters record it."""
    message = getattr(exc, "msg", None)
    return explain_message(message) if isinstance(message, str) and message.strip() else explain(exc)


def reason_of(exc: BaseException) -> str:
    """A break in words."""
    return explained_break(exc).words


def skipped_functions(first: BaseException | None, record: CompileRecord) -> list[str]:
    """The functions dynamo skipped, the one ``fullgraph=True`` stopped at first."""
    at_first = _skip_of(first)
    return ([at_first] if at_first else []) + [name for name in record.skipped if name != at_first]


def skipped_summary(skipped: list[str], breaks: int) -> str:
    """"dynamo skips 1 function: helper (torch.compiler.disable), which runs in Python ..." for a result's detail."""
    n = len(skipped)
    text = (f"dynamo skips {n} function{'s' if n > 1 else ''}: {', '.join(skipped)}, which "
            f"run{'s' if n == 1 else ''} in Python outside the graph, so torch.compile(fn, fullgraph=True) fails")
    return text + ("" if breaks else " (this is no graph break: the traced code is one graph)")


def explained_reasons(first: BaseException | None, record: CompileRecord) -> list[Explained]:
    """Distinct reasons with their causes, the first break's first (a skipped function is no break: see the
    module)."""
    found = [explained_break(first)] if is_break(first) and not _skip_of(first) else []
    for message in record.messages:
        said = explain_message(message)
        if said.words and said.words not in [f.words for f in found]:
            found.append(said)
    return found


def reasons(first: BaseException | None, record: CompileRecord) -> list[str]:
    """Distinct reasons in words, the first break's first (a skipped function is no break: see the module)."""
    return [said.words for said in explained_reasons(first, record)]


def count(first: BaseException | None, record: CompileRecord) -> int:
    """Graph breaks: at least the graphs minus one, at least one per distinct break dynamo's graph-break
    counter recorded, and at least one when dynamo skipped a frame or fullgraph=True stopped at a break.
    Its "unimplemented" counter is not counted: it records the same break again once per frame that
    was being traced (piq's GMSDLoss: one data-dependent branch, two messages, two breaks said where
    explain() says none). (A function with no tensor operation compiles no graph and breaks nothing; a
    backend that fails breaks nothing; a skipped function breaks only where it splits the graphs.)"""
    breaks = max(record.graphs - 1, record.recorded_breaks)
    if (is_break(first) and not _skip_of(first)) or record.skipped_frames:
        breaks = max(breaks, 1)
    return breaks
