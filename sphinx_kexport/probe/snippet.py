"""The repro snippet of one cell: Python a user pastes to see what the probe saw.

Pure standard library (no torch): it assembles text from a case's ``call``
(source that defines ``fn`` and ``inputs``, written by call_source.py). The
snippet runs the path as the probe did, feeding containers by their flattened
leaves, then compares with eager, so a ``fail`` cell raises its failure and a
``mismatch`` cell fails the comparison. Meant to move into the shared
``snapshot`` package so that the page's repro and ``probe repro`` are one.
"""

from __future__ import annotations

TORCH_IMPORT = "import torch\n"

_PRELUDE = '''\
class Probe(torch.nn.Module):
    """Every tensor input is a graph input, as the probe ran it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def leaves(value):
    """The tensors inside a (nested) dict, list or tuple, in the exporter's order."""
    if isinstance(value, dict):
        return [t for item in value.values() for t in leaves(item)]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in leaves(item)]
    return [value] if isinstance(value, torch.Tensor) else []


model = Probe(fn).eval()
'''

_TO_CUDA = '''\
def on_cuda(value):
    if isinstance(value, dict):
        return {key: on_cuda(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(on_cuda(item) for item in value)
    return value.to("cuda")


model = model.to("cuda")
inputs = on_cuda(inputs)
'''

_PATH_CODE = {
    "onnx": (
        "onnx_program = torch.onnx.export(model, inputs, dynamo=True, opset_version={opset})\n"
        "onnx_program.save(\"case.onnx\")\n"
        "import onnx, onnxruntime\n"
        "onnx.checker.check_model(onnx_program.model_proto, full_check=True)\n"
        "session = onnxruntime.InferenceSession(\"case.onnx\", providers={providers})\n"
        "arrays = [t.detach().cpu().numpy() for t in leaves(inputs)]\n"
        "feed = dict(zip([i.name for i in session.get_inputs()], arrays))\n"
        "got = [torch.as_tensor(a) for a in session.run(None, feed)]\n"
    ),
    "export": (
        "exported = torch.export.export(model, inputs)\n"
        "got = leaves(exported.module()(*inputs))\n"
    ),
    "compile": (
        "try:  # the compile-first check: the first graph break, if any\n"
        "    torch.compile(model, fullgraph=True, backend=\"eager\")(*inputs)\n"
        "    print(\"fullgraph=True: one graph\")\n"
        "except Exception as exc:\n"
        "    print(\"fullgraph=True: first graph break:\", str(exc).splitlines()[0])\n"
        "torch._dynamo.reset()\n"
        "got = leaves(torch.compile(model)(*inputs))\n"
    ),
}

_COMPARE = (
    "assert len(got) == len(expected), f\"{{len(got)}} outputs, eager returns {{len(expected)}}\"\n"
    "for out, ref in zip(got, expected):\n"
    "    torch.testing.assert_close(out.cpu(), ref.cpu(), atol={atol}, rtol={rtol}, equal_nan=True, "
    "check_dtype=False)\n"
    "print(\"same as eager\")\n"
)
_COMPARE_SHAPES = (  # a random operator: only what the probe checks
    "assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in expected], \"shapes differ from eager\"\n"
    "print(\"same shapes as eager (a random operator: values are not compared)\")\n"
)


def call_body(call: str) -> str:
    """The call without its own leading ``import torch`` (the snippet starts with one)."""
    call = call.rstrip()
    return call[len(TORCH_IMPORT):] if call.startswith(TORCH_IMPORT) else call


def snippet(call: str, path: str, device: str, *, opset: int = 18, title: str = "", check: bool = True,
            atol: float = 2e-4, rtol: float = 1e-3) -> str:
    """Python source reproducing ``path`` (onnx, export, compile) on ``device``; "" without a call."""
    if not call.strip():
        return ""
    if path not in _PATH_CODE:
        raise ValueError(f"unknown path {path!r}; expected one of {', '.join(_PATH_CODE)}")
    providers = ('["CUDAExecutionProvider", "CPUExecutionProvider"]' if device == "cuda"
                 else '["CPUExecutionProvider"]')
    lines = [f"# {title}"] if title else []
    lines += [TORCH_IMPORT.rstrip(), "", call_body(call), "", _PRELUDE]
    if device == "cuda":
        lines.append(_TO_CUDA)
    lines.append("with torch.no_grad():")
    body = "torch.manual_seed(1234)\nexpected = leaves(model(*inputs))\ntorch.manual_seed(1234)\n"
    body += _PATH_CODE[path].format(opset=opset, providers=providers)
    body += _COMPARE.format(atol=atol, rtol=rtol) if check else _COMPARE_SHAPES
    lines.extend("    " + line if line else "" for line in body.rstrip("\n").split("\n"))
    return "\n".join(lines) + "\n"
