"""A step cannot change the next case's result through torch's global module hooks.

torch 2.9.1's AOTAutograd leaves a buffer-registration hook registered when a non-strict torch.export
fails while tracing; every later torch.compile in that worker of a call that registers a buffer then
broke its graph on the hook (kornia's Lie groups: "ok" in a fresh process, "ok-breaks" in the survey).
torch 2.13 removes its hook, so the leak is made here by a case whose call registers one and never
removes it; the case after it, measured in the same process, must compile in one graph.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402
from torch.nn.modules import module as torch_module  # noqa: E402


def _breaking_hook(module, name, buffer):
    torch._dynamo.graph_break()  # dynamo cannot put this in a graph: a leaked hook shows as a graph break
    return buffer


def leaves_a_hook(x):
    torch_module.register_module_buffer_registration_hook(_breaking_hook)  # never removed
    return x + 1


def builds_a_buffer(x):
    holder = torch.nn.Module()  # kornia's Quaternion, So3, ... are modules built as the call runs
    holder.register_buffer("doubled", x * 2)
    return holder.doubled + 1


def measure(fn, paths=("onnx", "export", "compile")):
    spec = case(fn.__name__, fn, [torch.rand(2, 3)], package="tests")
    return Measurement(spec, "cpu", 18, library_root(""), dynamic=False).measure(list(paths))


def registered_hooks():
    return {name: list(value) for name, value in vars(torch_module).items()
            if name.startswith("_global_") and isinstance(value, dict)}


def test_a_hook_a_case_leaves_behind_does_not_reach_the_next_case():
    before = registered_hooks()
    measure(leaves_a_hook)  # registers its hook in the eager step and in every path
    assert registered_hooks() == before
    compiled = measure(builds_a_buffer, ["compile"])["compile"]
    assert compiled["status"] == "ok" and compiled.get("graph_breaks", 0) == 0, compiled


def test_the_leaked_hook_would_break_the_next_cases_graph():
    # the control: what the case after a leak measured before each step restored the hooks
    handle = torch_module.register_module_buffer_registration_hook(_breaking_hook)
    try:
        torch._dynamo.reset()
        with pytest.raises(Exception, match="graph_break"):
            torch.compile(builds_a_buffer, fullgraph=True, backend="eager")(torch.rand(2, 3))
    finally:
        handle.remove()
    torch._dynamo.reset()
