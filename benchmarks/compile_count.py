"""Count what torch.compile does while a block runs: the graphs dynamo hands any backend (each one a trace of
the case, trace-only or not) and the graphs inductor compiles (each one an inductor compile, a cache hit
included). Used by bench_compile_count.py and the compile-count test; it wraps torch's own entry points,
so it counts the probe of any revision the same way."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass
class Compiles:
    captured: int = 0  # graphs dynamo handed a backend (eager or inductor)
    inductor: int = 0  # graphs inductor compiled


@contextlib.contextmanager
def counting() -> Iterator[Compiles]:
    import torch._dynamo.output_graph as output_graph
    import torch._inductor.compile_fx as compile_fx

    found = Compiles()
    handed, inductor = output_graph.OutputGraph.call_user_compiler, compile_fx.compile_fx

    def call_user_compiler(self: Any, *args: Any, **kwargs: Any) -> Any:
        found.captured += 1
        return handed(self, *args, **kwargs)

    def compile_graph(*args: Any, **kwargs: Any) -> Any:
        # compile_fx calls itself again for one graph (config patches, AOT mode), passing inner_compile
        # then: one graph is one compile
        if "inner_compile" not in kwargs:
            found.inductor += 1
        return inductor(*args, **kwargs)

    output_graph.OutputGraph.call_user_compiler = call_user_compiler  # type: ignore[method-assign]
    compile_fx.compile_fx = compile_graph
    try:
        yield found
    finally:
        output_graph.OutputGraph.call_user_compiler = handed  # type: ignore[method-assign]
        compile_fx.compile_fx = inductor
