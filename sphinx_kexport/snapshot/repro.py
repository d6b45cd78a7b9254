"""The exact Python call that reproduces one cell of the page.

Built from the case's registration as the probe recorded it (the ``call``
field: source that defines ``fn`` and ``inputs``). Snapshots without it
(Kornia's format) get no repro.
"""

from __future__ import annotations

# Where a template (see repro_templates) takes the case's call and title.
CALL_SLOT = "@@KX_CALL@@"
TITLE_SLOT = "@@KX_TITLE@@"

_WRAPPER = '''\
class Probe(torch.nn.Module):
    """Every tensor input is a graph input, as the probe ran it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


model = Probe(fn).eval()
'''

_PATH_CODE = {
    "onnx": (
        "onnx_program = torch.onnx.export(model, inputs, dynamo=True, opset_version={opset})\n"
        "onnx_program.save(\"case.onnx\")\n"
        "import onnx, onnxruntime\n"
        "onnx.checker.check_model(onnx_program.model_proto, full_check=True)\n"
        "session = onnxruntime.InferenceSession(\"case.onnx\", providers={providers})\n"
        "feed = {{i.name: t.detach().cpu().numpy() for i, t in zip(session.get_inputs(), inputs)}}\n"
        "print(session.run(None, feed))\n"
    ),
    "export": (
        "exported = torch.export.export(model, inputs)\n"
        "print(exported.module()(*inputs))\n"
    ),
    "compile": (
        "print(torch._dynamo.explain(model)(*inputs))  # graph breaks and their reasons\n"
        "torch._dynamo.reset()\n"
        "print(torch.compile(model)(*inputs))\n"
    ),
}


TORCH_IMPORT = "import torch\n"


def call_body(call: str) -> str:
    """The call as the snippet holds it: trailing space dropped, and its own leading
    ``import torch`` too (the probe writes one; the snippet already starts with it)."""
    call = call.rstrip()
    return call[len(TORCH_IMPORT):] if call.startswith(TORCH_IMPORT) else call


def repro_code(call: str, path: str, device: str, opset: int = 18, title: str = "") -> str:
    """Python source reproducing ``path`` (onnx, export, compile) on ``device``.

    Returns "" when the case carries no call.
    """
    if not call.strip():
        return ""
    call = call_body(call)  # a template's CALL_SLOT passes through unchanged
    providers = '["CUDAExecutionProvider", "CPUExecutionProvider"]' if device == "cuda" \
        else '["CPUExecutionProvider"]'
    lines = []
    if title:
        lines.append(f"# {title}")
    lines.append(TORCH_IMPORT.rstrip())  # the one call_body keeps the call from repeating
    lines.append("")
    lines.append(call)
    lines.append("")
    lines.append(_WRAPPER)
    if device == "cuda":
        lines.append('model = model.to("cuda")')
        lines.append('inputs = tuple(t.to("cuda") for t in inputs)')
    lines.append("torch.manual_seed(1234)")
    lines.append("with torch.no_grad():")
    body = _PATH_CODE[path].format(opset=opset, providers=providers)
    lines.extend("    " + line if line else "" for line in body.rstrip("\n").split("\n"))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# on the page: one template per column, filled in the browser from each row's ``call``


def repro_templates(columns: list[tuple[str, str]], opsets: dict[str, int]) -> dict[str, str]:
    """``{"onnx-cpu": code, ...}`` with CALL_SLOT and TITLE_SLOT where the case's call and title go.

    The page carries these once; the browser script replaces the slots with a
    failing row's ``call`` and name, so the snippet is exactly ``repro_code``'s
    while each row carries only its call.
    """
    return {f"{path}-{device}": repro_code(CALL_SLOT, path, device, opsets.get(device, 18), TITLE_SLOT)
            for device, path in columns}


def fill_template(template: str, call: str, title: str) -> str:
    """What the browser script does (kept here so the tests can say what to expect)."""
    return template.replace(TITLE_SLOT, title).replace(CALL_SLOT, call_body(call))
