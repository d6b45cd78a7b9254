"""What a step that ran past the time limit (or died) was busy with, from the stack faulthandler wrote.

``ran past the time limit of 900 s during torch.compile`` does not tell a user whether the compiled code
was slow or the compiling: kornia's ``get_gaussian_discrete_kernel1d(5, 1.5)`` spends the whole limit in
inductor's lowering (a 20-step recurrence inlined into one expression, which doubles with each step),
where no library frame is on the stack at all. The innermost frame of the worker's last stack dump that
belongs to the library or to one of the tools below says which: a library frame means the library's own
code was running (``where`` then names it), a tool's frame names that tool's phase.
"""

from __future__ import annotations

from .locate import FILE_LINE, LibraryRoot

_DUMP_START = "(most recent call first):"

# (a part of the path of a frame's file, what the step was busy with), most specific first; paths use "/"
_PHASES: tuple[tuple[str, str], ...] = (
    ("/torch/_inductor/output_code.py", "the compiled code was running"),
    ("/torch/_inductor/codecache.py", "inductor was compiling the C++ code it generated"),
    ("/torch/_inductor/cpp_builder.py", "inductor was compiling the C++ code it generated"),
    ("/torch/_inductor/async_compile.py", "inductor was compiling the C++ code it generated"),
    ("/torch/_inductor/", "inductor was still turning the captured graph into code (dynamo had captured it)"),
    ("/torch/_functorch/", "AOTAutograd was still tracing the captured graph"),
    ("/torch/_dynamo/", "dynamo was still tracing the function"),
    ("/torch/onnx/", "the ONNX exporter was still translating the graph"),
    ("/onnxscript/", "onnxscript was still translating or optimising the ONNX graph"),
    ("/onnxruntime/", "onnxruntime was still loading or running the exported model"),
    ("/onnx/", "onnx was still checking the exported model"),
    ("/torch/export/", "torch.export was still tracing the function"),
    ("/torch/_export/", "torch.export was still tracing the function"),
)


def last_dump(log: str) -> list[str]:
    """The files of the last stack dump in ``log``, innermost first (as faulthandler writes them)."""
    start = log.rfind(_DUMP_START)
    if start < 0:
        return []
    return [m.group(1) for m in FILE_LINE.finditer(log, start)]


def busy_with(log: str, root: LibraryRoot) -> str:
    """What the worker was doing when it dumped its stack last: a tool's phase, or "" when the library's own
    code was running (or nothing known was on the stack)."""
    for filename in last_dump(log):
        if root.owns(filename):
            return ""
        path = filename.replace("\\", "/")
        for part, phase in _PHASES:
            if part in path:
                return phase
    return ""
