"""The Python that reproduces one cell: what the page offers and ``probe repro`` prints.

Built from the case's registration as the probe recorded it (the ``call``
field: source that defines ``fn`` and ``inputs``); snapshots without it
(Kornia's format) get no repro. The snippet runs eager first, then the path
as the probe ran it (inputs fed as their flattened tensors, the compile path
tried with ``fullgraph=True`` first), then compares with eager: a ``fail``
cell raises its failure, a ``mismatch`` cell fails the comparison. A random
operator (``check: false``) is compared on output count and shapes only.
"""

from __future__ import annotations

from typing import Any

from . import repro_landmarks as landmarks
from .vocabulary import (COMPILE, CUDA, DEFAULT_ATOL, DEFAULT_OPSET, DEFAULT_RTOL, EXPORT, ONNX, PATH_LABELS,
                         STAGE_COMPARE)

# Where a template (see repro_templates) takes the case's call, title and comparison.
CALL_SLOT = "@@KX_CALL@@"
TITLE_SLOT = "@@KX_TITLE@@"
COMPARE_SLOT = "@@KX_COMPARE@@"
ATOL, RTOL = DEFAULT_ATOL, DEFAULT_RTOL  # the probe's defaults (a case may set its own; the snapshot does not say)

TORCH_IMPORT = "import torch\n"
PRELUDE_IMPORT = "import dataclasses\n"  # what the prelude needs besides torch

_PRELUDE = '''\
class Probe(torch.nn.Module):
    """Every tensor input is a graph input, and every tensor the call returns an output, as the probe ran it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return tuple(leaves(self.fn(*args)))


HELD = {}  # the attributes an object's class holds its tensors in, learnt eagerly (read by name when captured)


def leaves(value):
    """The tensors in a result, in the probe's order: in dicts, lists and tuples, and in the objects that hold
    them (a `.data` tensor, a value module's tensors, a dataclass's fields, an object's attributes)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in leaves(item)]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in leaves(item)]
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, torch.SymInt, torch.SymFloat)):
        return []
    if isinstance(getattr(value, "data", None), torch.Tensor):
        return [value.data]
    if isinstance(value, torch.nn.Module) and type(value).forward is not torch.nn.Module.forward:
        return []  # a layer or a model: its weights are no output
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [t for f in dataclasses.fields(value) for t in leaves(getattr(value, f.name))]
    if isinstance(value, type) or callable(value) or not hasattr(value, "__dict__"):
        return []
    if not torch.compiler.is_compiling():
        if isinstance(value, torch.nn.Module):
            names = [*value._parameters, *value._buffers, *value._modules]
            names += [k for k, v in vars(value).items() if isinstance(v, (torch.Tensor, torch.nn.Module))]
            HELD[type(value)] = tuple(sorted(dict.fromkeys([*HELD.get(type(value), ()), *names])))
        else:
            HELD[type(value)] = tuple(dict.fromkeys([*HELD.get(type(value), ()), *vars(value)]))
    return [t for name in HELD.get(type(value), ()) for t in leaves(getattr(value, name, None))]


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

_PATH_CODE: dict[str, str] = {
    ONNX: (
        "# a trailing dict in args would be read as keyword arguments: an empty one after it stands for those\n"
        "args = (*inputs, {{}}) if inputs and isinstance(inputs[-1], dict) else inputs\n"
        "onnx_program = torch.onnx.export(model, args, dynamo=True, opset_version={opset})\n"
        "import os, tempfile\n"
        "onnx_path = os.path.join(tempfile.mkdtemp(prefix=\"kexport-repro-\"), \"case.onnx\")  # not in the cwd\n"
        "onnx_program.save(onnx_path)\n"
        "import onnx, onnxruntime\n"
        "onnx.checker.check_model(onnx_program.model_proto, full_check=True)\n"
        "session = onnxruntime.InferenceSession(onnx_path, providers={providers})\n"
        "arrays = [t.detach().cpu().numpy() for t in leaves(inputs)]\n"
        "feed = dict(zip([i.name for i in session.get_inputs()], arrays))\n"
        "got = [torch.as_tensor(a) for a in session.run(None, feed)]\n"
    ),
    EXPORT: (
        "exported = torch.export.export(model, inputs)\n"
        "got = leaves(exported.module()(*inputs))\n"
    ),
    COMPILE: (
        "try:  # the compile-first check: the first graph break, if any\n"
        "    torch.compile(model, fullgraph=True, backend=\"eager\")(*inputs)\n"
        "    print(\"fullgraph=True: one graph\")\n"
        "except Exception as exc:\n"
        "    print(\"fullgraph=True: first graph break:\", str(exc).splitlines()[0])\n"
        "torch._dynamo.reset()\n"
        "got = leaves(torch.compile(model)(*inputs))\n"
    ),
}
PATHS = tuple(_PATH_CODE)

# the comparison, after the landmark its first line begins with (landmarks.COMPARE_START, read when written)
_COMPARE_VALUES = (
    "len(got) == len(expected), f\"{len(got)} outputs, eager returns {len(expected)}\"\n"
    "for out, ref in zip(got, expected):\n"
    f"    torch.testing.assert_close(out.cpu(), ref.cpu(), atol={ATOL}, rtol={RTOL}, equal_nan=True, "
    "check_dtype=False)\n"
    "print(\"same as eager\")\n"
)
_COMPARE_SHAPES = (  # a random operator: only what the probe checks
    "[tuple(t.shape) for t in got] == [tuple(t.shape) for t in expected], \"shapes differ from eager\"\n"
    "print(\"same shapes as eager (a random operator: values are not compared)\")\n"
)


def _indented(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.rstrip("\n").split("\n"))


def compare_block(check: bool = True) -> str:
    """The snippet's last lines, indented into its ``with`` block: values, or shapes for a random operator."""
    return _indented(landmarks.COMPARE_START + (_COMPARE_VALUES if check else _COMPARE_SHAPES))


def call_body(call: str) -> str:
    """The call as the snippet holds it: trailing space dropped, and its own leading
    ``import torch`` too (the probe writes one; the snippet already starts with it)."""
    call = call.rstrip()
    return call[len(TORCH_IMPORT):] if call.startswith(TORCH_IMPORT) else call


def _snippet(call: str, path: str, device: str, opset: int, title: str, compare: str) -> str:
    providers = ('["CUDAExecutionProvider", "CPUExecutionProvider"]' if device == CUDA
                 else '["CPUExecutionProvider"]')
    lines = [f"# {title}"] if title else []
    lines += ["import dataclasses", TORCH_IMPORT.rstrip(), "", call, "", _PRELUDE]  # torch: the import call_body drops
    if device == CUDA:
        lines.append(_TO_CUDA)
    lines.append("with torch.no_grad():")
    # the probe's seed before eager and before the path; the eager line is the landmark the verdict finds
    body = f"{landmarks.seed_line()}\n{landmarks.EAGER_LINE}\n{landmarks.seed_line()}\n"
    body += _PATH_CODE[path].format(opset=opset, providers=providers)
    lines.append(_indented(body))
    lines.append(compare)
    return "\n".join(lines) + "\n"


def repro_code(call: str, path: str, device: str, opset: int = DEFAULT_OPSET, title: str = "", *, check: bool = True) -> str:
    """Python source reproducing ``path`` (onnx, export, compile) on ``device``; "" when the case has no call."""
    if not call.strip():
        return ""
    if path not in _PATH_CODE:
        raise ValueError(f"unknown path {path!r}; expected one of {', '.join(PATHS)}")
    return _snippet(call_body(call), path, device, opset, title, compare_block(check))


def cell_repro(snapshot: dict[str, Any], case: dict[str, Any], path: str, device: str) -> str:
    """The snippet of one cell of a (format-1) snapshot, titled with its recorded outcome, as ``probe repro``
    prints it and ``probe repro --check`` runs it; "" when the case records no call."""
    result = case.get("results", {}).get(device, {}).get(path, {})
    title = f"{case['name']}: {PATH_LABELS[path]} on {device}"
    if result:
        title += f", recorded {result['status']}" + (f" ({result['detail']})" if result.get("detail") else "")
    opset = int(snapshot["environments"].get(device, {}).get("opset") or DEFAULT_OPSET)
    return repro_code(case.get("call") or "", path, device, opset, " ".join(title.split()),
                      check=bool(case.get("check", True)))


# --------------------------------------------------------------------------
# on the page: one template per column, filled in the browser from each row's ``call``


RANDOM_SUFFIX = "-random"  # the comparison template of a random operator (shapes only): "compare-random"


def repro_templates(columns: list[tuple[str, str]], opsets: dict[str, int]) -> dict[str, str]:
    """``{"onnx-cpu": code, ..., "compare": ..., "compare-random": ...}``.

    Each column's code has CALL_SLOT, TITLE_SLOT and COMPARE_SLOT where a
    row's call, title and comparison go; the page carries these once and the
    browser script fills them from a failing row's ``call``, name and check
    flag, so the snippet is exactly ``repro_code``'s while each row carries only
    its call.
    """
    # the comparison is the probe's compare stage, named after it (the script reads the name off the page)
    templates = {f"{path}-{device}": _snippet(CALL_SLOT, path, device, opsets.get(device, DEFAULT_OPSET), TITLE_SLOT,
                                             COMPARE_SLOT)
                 for device, path in columns}
    return templates | {STAGE_COMPARE: compare_block(True), f"{STAGE_COMPARE}{RANDOM_SUFFIX}": compare_block(False)}


def fill_template(template: str, call: str, title: str, check: bool = True) -> str:
    """What the browser script does (kept here so the tests can say what to expect).

    The call goes in last, so that nothing in it is ever taken for a slot."""
    return (template.replace(COMPARE_SLOT, compare_block(check)).replace(TITLE_SLOT, title)
            .replace(CALL_SLOT, call_body(call)))
