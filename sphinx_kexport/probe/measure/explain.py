"""Turn an exception (or a dynamo break reason) into a reason a user understands.

The probe sees torch's internal error text; the page must show the *cause*
("no ONNX lowering for torch.linalg.svd"), not a stack trace. A table of known
causes is matched against the whole exception chain (torch wraps the real
cause one or two levels deep); anything unknown falls back to the root cause's
first line, cleaned of internal paths and newlines and cut to ~160 chars.

Pure Python: torch is consulted only if it is already imported, to turn an
aten overload name into the public torch name.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Callable, NamedTuple

from ...snapshot import fix_classes as fix
from ...snapshot.causes import CauseKind, kind
from ..base.source_paths import module_for_file

MAX_REASON = 160

# aten names whose public spelling the generic rule below would get wrong
ATEN_PUBLIC_NAMES = {
    "_linalg_svd": "torch.linalg.svd",
    "_linalg_solve_ex": "torch.linalg.solve",
    "linalg_lu_factor_ex": "torch.linalg.lu_factor",
    "_linalg_eigh": "torch.linalg.eigh",
    "linalg_qr": "torch.linalg.qr",
    "linalg_inv_ex": "torch.linalg.inv",
    "_linalg_det": "torch.linalg.det",
    "_linalg_slogdet": "torch.linalg.slogdet",
    "linalg_cholesky_ex": "torch.linalg.cholesky",
    "linalg_eig": "torch.linalg.eig",
    "_conj": "complex conj (torch.fft)",
    "_fft_c2c": "torch.fft (complex)",
    "_fft_r2c": "torch.fft.rfft",
    "_fft_c2r": "torch.fft.irfft",
    "_local_scalar_dense": "Tensor.item()",
    "_unique2": "torch.unique",
    "_sparse_addmm": "torch.sparse.mm",  # what torch.sparse.mm and torch.sparse.addmm export as
    "_sparse_mm": "torch.sparse.mm",
    "_sparse_coo_tensor_with_dims_and_tensors": "torch.sparse_coo_tensor",
    # named alike whether torch is imported or not (the repro check's process reads the words without it)
    "_to_sparse": "Tensor.to_sparse",
    "_to_sparse_csr": "Tensor.to_sparse_csr",
    "_to_sparse_csc": "Tensor.to_sparse_csc",
    "_to_sparse_bsr": "Tensor.to_sparse_bsr",
    "_to_sparse_bsc": "Tensor.to_sparse_bsc",
    "_to_dense": "Tensor.to_dense",
    "_unique": "torch.unique",
    "unique_dim": "torch.unique",
    "grid_sampler_3d": "torch.nn.functional.grid_sample (5-D)",
    "upsample_bicubic2d_aa": "torch.nn.functional.interpolate(mode='bicubic', antialias=True)",
    "_upsample_bicubic2d_aa": "torch.nn.functional.interpolate(mode='bicubic', antialias=True)",
    "_upsample_bilinear2d_aa": "torch.nn.functional.interpolate(mode='bilinear', antialias=True)",
}

_NAMESPACES = (("linalg_", "torch.linalg."), ("fft_", "torch.fft."), ("special_", "torch.special."))


def torch_name(op: str) -> str:
    """``_linalg_svd`` -> ``torch.linalg.svd``; ``aten.nonzero.default`` -> ``torch.nonzero``."""
    op = op.split(".")[1] if op.startswith("aten.") else op.split(".")[0]
    if op in ATEN_PUBLIC_NAMES:
        return ATEN_PUBLIC_NAMES[op]
    base = op.lstrip("_")
    for suffix in ("_ex", "_out"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    for prefix, namespace in _NAMESPACES:
        if base.startswith(prefix):
            return namespace + base[len(prefix):]
    torch = sys.modules.get("torch")
    if torch is None:
        return f"torch.{base}"
    for owner, label in ((torch, "torch"), (torch.nn.functional, "torch.nn.functional"),
                         (torch.Tensor, "Tensor")):
        if hasattr(owner, base):
            return f"{label}.{base}"
    return f"aten.{op}"


# what a torch call returned instead of a tensor, by dynamo's name of its type
_VALUE_WORDS = {"device": "a torch.device", "dtype": "a torch.dtype", "Size": "a torch.Size", "int": "a Python int",
                "bool": "a Python bool", "str": "a Python string", "tuple": "a Python tuple"}

# The cause each rule names beside its words (snapshot/causes.py): its fix class on torch.compile and on the
# capture paths, and what the match tells of it (the operator, a dynamo setting that traces it)
_BRANCH = kind(fix.TENSOR_BRANCH, fix.GUARD)
_INTEGER = kind(fix.REDESIGN, fix.GUARD)
_OUTPUT_SHAPE = kind(fix.REDESIGN, setting="torch._dynamo.config.capture_dynamic_output_shape_ops")
_SCALAR = kind(fix.PYTHON_NUMBER, setting="torch._dynamo.config.capture_scalar_outputs")
NO_LOWERING, SPARSE_TENSOR, RUNTIME_KERNEL = kind(fix.NO_LOWERING), kind(fix.SPARSE_TENSOR), kind(fix.RUNTIME_KERNEL)
PYTHON_NUMBER, CONSTANT_MUTATION = kind(fix.PYTHON_NUMBER), kind(fix.CONSTANT_MUTATION)
UNTRACEABLE_PYTHON, BATCH_SPECIALISED = kind(fix.UNTRACEABLE_PYTHON), kind(fix.BATCH_SPECIALISED)
TOOL_BUG, RESULT_DIFFERS, UNCLASSIFIED = kind(fix.TOOL_BUG), kind(fix.RESULT_DIFFERS), kind(fix.UNCLASSIFIED)
LIBRARY_GUARD = kind(fix.GUARD)  # the library raises on a symbolic size: tell the tracer what holds


def _named(cause: CauseKind, group: int = 1) -> Callable[[re.Match[str]], CauseKind]:
    """The rule's cause, naming the operator its match's ``group`` holds."""
    return lambda m: cause.naming(torch_name(m.group(group)))


# (pattern over the whole chain text, reason or builder, cause or builder). First match wins, so
# specific causes come before generic ones.
Rule = tuple[re.Pattern[str], "str | Callable[[re.Match[str]], str]",
             "CauseKind | Callable[[re.Match[str]], CauseKind]"]

_RULES: list[Rule] = [
    # the exporter's dispatcher names the op, then why: keep the why when it is complex-valued tensors
    (re.compile(r"No ONNX function found for <OpOverload\(op='(?:aten|prims)\.(\w+)'[^\n]*complex-valued"),
     lambda m: f"no ONNX lowering for {torch_name(m.group(1))} of a complex-valued tensor (the ONNX exporter "
               "supports complex tensors in few operators)", _named(NO_LOWERING)),
    # a sparse COO / CSR tensor in or out (a graph library's adjacency): torch 2.13, plain scripts. The exporter
    # finds no function for the sparse op (aten._sparse_addmm of torch.sparse.mm, aten._to_sparse_csr,
    # aten._sparse_coo_tensor_with_dims_and_tensors, aten._to_dense of a sparse input) ...
    (re.compile(r"No ONNX function found for <OpOverload\(op='aten\.(\w*sparse\w*|_to_dense)'"),
     lambda m: f"the ONNX exporter cannot translate {torch_name(m.group(1))} on a sparse tensor (ONNX has no "
               "sparse tensors)", _named(SPARSE_TENSOR)),
    # ... or fails decomposing an op on a sparse CSR input (torch.sparse.mm, to_dense), before translating
    (re.compile(r"layout_impl is only implemented for TensorImpl subclasses"),
     "the ONNX exporter cannot decompose an operation on a sparse tensor input (ONNX has no sparse tensors)",
     SPARSE_TENSOR),
    (re.compile(r"No ONNX function found for <OpOverload\(op='(?:aten|prims)\.(\w+)'"),
     lambda m: f"no ONNX lowering for {torch_name(m.group(1))}", _named(NO_LOWERING)),
    (re.compile(r"aten_(\w+) (with .*?) is not supported in this export path"),
     lambda m: f"no ONNX lowering for {torch_name(m.group(1))} {m.group(2)}", _named(NO_LOWERING)),
    (re.compile(r"Could not find an implementation for (\w+)\((\d+)\)"),
     lambda m: f"onnxruntime has no kernel for ONNX {m.group(1)} (opset {m.group(2)}) with the input types "
               "used here (often float64 or bfloat16)", RUNTIME_KERNEL),
    (re.compile(r"Could not extract specialized integer from data-dependent expression"),
     "a Python integer (an index, loop count or size) is computed from tensor values at run time", _INTEGER),
    (re.compile(r"Dynamic shape operator[\s\S]*?Operator `([\w.]+)`"),
     lambda m: f"the output shape depends on tensor values ({torch_name(m.group(1))})", _named(_OUTPUT_SHAPE)),
    (re.compile(r"depends on input Tensor data|Dynamic shape operator"),
     "the output shape depends on tensor values (nonzero / boolean indexing)", _OUTPUT_SHAPE),
    (re.compile(r"Tensor\.tolist\(\)"),
     "a tensor is read back into a Python list (.tolist()) during the forward", PYTHON_NUMBER),
    (re.compile(r"Could not guard on data-dependent expression|GuardOnDataDependentSymNode|"
                r"Data-dependent branching|generic_jump"),
     "a Python branch (if / while) tests tensor values at run time", _BRANCH),
    # fake tensors have no data: a C++ kernel that reads values (torch.as_tensor / torch.tensor of a sequence
    # of 0-d tensors, a custom kernel) fails with this; it is not an .item()
    (re.compile(r"its data is not allocated"),
     "builds a tensor from the values of other tensors (e.g. torch.as_tensor of a sequence of 0-d tensors) or "
     "runs a kernel that reads raw data, which capture cannot do: its fake tensors hold no data", PYTHON_NUMBER),
    (re.compile(r"Tensor\.item\(\)|_local_scalar_dense|value out of a tracing tensor with aten\.item"),
     "a tensor value is read back into Python (.item() / bool()) during the forward", _SCALAR),
    (re.compile(r"Creating a new Tensor subclass (\w+) but the raw Tensor object is already associated to a "
                r"python object of type FakeTensor"),
     lambda m: f"wraps the traced tensor in the library's Tensor subclass {m.group(1)}, which capture cannot do "
               "(the tensor it traces is already a FakeTensor)", UNTRACEABLE_PYTHON),
    (re.compile(r"DataDependentOutputException\s*:?\s*(?:<-\s*)?aten\.(\w+)"),
     lambda m: f"{torch_name(m.group(1))} produces a Python value from tensor values (no graph output)",
     _named(_BRANCH)),
    # dynamo's graph break for the same cause: "Data dependent operator / Operator `aten.equal.default` has a
    # non-Tensor output whose value is dependent on the data of Tensor inputs"
    (re.compile(r"Data dependent operator[\s\S]*?Operator `(?:aten|prims)\.(\w+)[\w.]*` has a non-Tensor output"),
     lambda m: f"{torch_name(m.group(1))} produces a Python value from tensor values (no graph output)",
     _named(_BRANCH)),
    (re.compile(r"torch\._C\.Generator|'Optional\[Generator\]'|Generator as (an )?input"),
     "a torch.Generator argument cannot be captured", UNTRACEABLE_PYTHON),
    (re.compile(r"is mutated in the forward method|mutating a buffer|Mutating module attribute"),
     "a constant buffer is mutated in place during the forward", CONSTANT_MUTATION),
    # the ONNX exporter writes some operator arguments (a convolution's groups, a padding) as ONNX attributes,
    # which must be constants; with a dynamic batch the argument became a symbol
    (re.compile(r"Unsupported attribute type: '?<class '[\w.]*SymbolicTensor'>"),
     "the ONNX exporter needs an operator argument (such as a convolution's groups) as a constant, but here it "
     "is computed from a dynamic size", BATCH_SPECIALISED),
    # torch 2.13, plain script: export(M(), ()) of `a.data.mul(b.data)` for two tensors the function holds (not
    # inputs) fails like this
    (re.compile(r"Argument '(lifted_tensor_\d+)' of Node '\w+' was used before it has been defined"),
     "torch.export bug: its default (non-strict) tracing lifts a tensor the function holds (not an input) into "
     "the graph after the node that uses it (the function's own result is fine eagerly)", TOOL_BUG),
    # torch 2.13, plain script: a forward that builds an nn.Conv2d and fills its weight through ``.data``
    # (kornia's sift_describe builds a SIFTDescriptor per call) fails like this
    (re.compile(r"We found a fake tensor in the exported program constant's list"),
     "torch.export cannot keep a tensor made while it traced: the function builds a module inside the call and "
     "fills its weights outside the traced operations (through .data); build the module once, outside the "
     "exported function", UNTRACEABLE_PYTHON),
    # torch 2.9.1's exporter on kornia's canny(hysteresis=True): the condition of its torch.while_loop returns
    # one tensor, and _handle_output_node iterates over a subgraph's outputs (the exporter writes while_loop
    # from torch 2.11, kornia's comment says; 2.13 exports it)
    (re.compile(r"Error when translating node return \w+[\s\S]*?'Node' object is not iterable"),
     "the ONNX exporter of this torch cannot translate a control-flow subgraph (such as a torch.while_loop's "
     "condition) that returns a single tensor: it expects a tuple of outputs", TOOL_BUG),
    # torch 2.9.1's ONNX exporter on kornia's XFeat.detectAndCompute (its fx type-promotion pass asserts); the same
    # call exports on 2.13.0
    (re.compile(r"node\.meta\['val'\]\.dtype\(torch\.(\w+)\) does not agree with type promotion rule\(torch\.(\w+)\)"),
     lambda m: f"exporter bug: its type-promotion pass expects {m.group(2)} where the traced graph holds "
               f"{m.group(1)} (the eager result is correct)", TOOL_BUG),
    (re.compile(r"Nodes in a graph must be topologically sorted"),
     "exporter bug: onnxscript emits an unsorted graph (the eager result is correct)", TOOL_BUG),
    (re.compile(r"No conversion available yet when dim is None"),
     "no ONNX lowering for the dim=None reduction the operator uses", NO_LOWERING),
    (re.compile(r"Cannot find a compatible OpOverload for (?:aten|prims)\.(\w+)"),
     lambda m: f"the ONNX exporter finds no ONNX overload of {torch_name(m.group(1))} for the argument types "
               "used (e.g. Python numbers mixed with tensors or sizes)", _named(NO_LOWERING)),
    (re.compile(r"Overloaded torch operator invoked from Python failed to match"),
     "the exporter cannot resolve the torch overload the operator calls", NO_LOWERING),
    # torch 2.13's torch.export on kornia's ResizePostProcessor (`size.cpu().long().numpy().tolist()`): the
    # tensors it traces are subclasses with no data
    (re.compile(r"\.numpy\(\) is not supported for tensor subclasses"),
     "reads tensor values into Python through .numpy() during the forward (e.g. for a size), which capture "
     "cannot trace: the tensors it traces hold no data", PYTHON_NUMBER),
    (re.compile(r"Cannot access data pointer of Tensor|Cannot access storage of"),
     "the operator reads raw tensor memory (numpy / data_ptr / deepcopy), which capture cannot trace", PYTHON_NUMBER),
    (re.compile(r"(InductorError|BackendCompilerFailed)[\s\S]*(CalledProcessError|g\+\+|C\+\+ compile error)"),
     "inductor C++ codegen bug in this torch version (the generated kernel does not compile)", TOOL_BUG),
    (re.compile(r"BackendCompilerFailed[\s\S]*UntypedStorage"),
     "inductor bug in this torch version (KeyError on a tensor storage while lowering the graph)", TOOL_BUG),
    # torch 2.13's and 2.15's inductor on kornia's draw_rectangle with fullgraph=True (a plain script says the same)
    (re.compile(r"LoweringException: (\w+)(?:: ([^\n]*))?"),
     lambda m: "inductor bug in this torch version (lowering the captured graph fails: "
               + clean_line(m.group(1) + (f": {m.group(2)}" if m.group(2) else ""), 90) + ")", TOOL_BUG),
    (re.compile(r"Skip calling `torch\.compiler\.disable\(\)`d function|torch\.compiler\.disable"),
     "calls a function marked torch.compiler.disable, which runs in Python", UNTRACEABLE_PYTHON),
    # dynamo (torch.compile) graph breaks, by the graph-break type dynamo names in its message. torch 2.13, plain
    # scripts: a sparse input or output ("Attempted to wrap sparse Tensor [with VariableTracker]"), a sparse
    # tensor built inside (torch.sparse_coo_tensor is a builtin dynamo skips)
    (re.compile(r"Attempted to wrap sparse Tensor|torch\.compile does not support sparse Tensors"),
     "dynamo (torch.compile) cannot trace a sparse tensor: the code that touches one runs eagerly", SPARSE_TENSOR),
    (re.compile(r"Attempted to (?:call|inline) function marked as skipped[\s\S]*?builtin "
                r"`torch\._VariableFunctionsClass\.(sparse_\w+?)\.?`"),
     lambda m: f"builds a sparse tensor with torch.{m.group(1)}, which dynamo (torch.compile) cannot trace",
     SPARSE_TENSOR),
    (re.compile(r"Attempted to (?:call|inline) function marked as skipped[\s\S]*?(?:builtin|function) `([^`]+?)\.?`"),
     lambda m: f"calls {m.group(1)}, which dynamo does not trace (a Python builtin, a C extension or a function "
               "it skips on purpose)", UNTRACEABLE_PYTHON),
    # "torch.* op returned non-Tensor ... example_value type: device; op: call_function; target: <built-in
    # function getitem>": torch 2.9.1's dynamo on Module.to(device) (its argument parsing returns a device);
    # torch 2.13's on torch.result_type (a dtype)
    (re.compile(r"torch\.\* op returned non-Tensor[\s\S]*?example_value type: (\w+); op: \w+; "
                r"target: <built-in (?:method|function) (\w+)"),
     lambda m: f"{'a torch call' if m.group(2) == 'getitem' else 'torch.' + m.group(2)} returns "
               f"{_VALUE_WORDS.get(m.group(1), 'a Python ' + m.group(1))}, not a tensor, which dynamo cannot put "
               "in its graph", UNTRACEABLE_PYTHON),
    (re.compile(r"Dynamo does not know how to trace builtin operator `(\w+)`"),
     lambda m: f"calls the Python builtin {m.group(1)}(), which dynamo cannot trace with these arguments",
     UNTRACEABLE_PYTHON),
    (re.compile(r"An opaque object was created in the middle of the program"),
     "creates an object dynamo cannot trace (such as a torch.Generator) inside the function", UNTRACEABLE_PYTHON),
    (re.compile(r"Attempted to copy\.deepcopy a tensor|Dynamo does not support copy\.deepcopy"),
     "calls copy.deepcopy, which dynamo cannot trace", UNTRACEABLE_PYTHON),
    (re.compile(r"Unsupported context manager[\s\S]*?enter a `([^`]+)` context manager"),
     lambda m: f"enters a {m.group(1)} context manager, which dynamo cannot trace", UNTRACEABLE_PYTHON),
    (re.compile(r"Graph break under GenericContextWrappingVariable"),
     "a graph break inside a context manager that dynamo cannot split", UNTRACEABLE_PYTHON),
    (re.compile(r"Observed exception|Exception with bad expected type|Caught non-Exception value"),
     "raises or catches an exception in a way dynamo cannot trace", UNTRACEABLE_PYTHON),
    # dynamo's "Missing tp_iternext" / "missing tp_iter": next() on, or a for loop over, an iterator it cannot step;
    # torch 2.15 words the same break "C-implemented special method without VariableTracker model:
    # 'list_iterator' implements '__next__' in C and Dynamo has no model for it."
    (re.compile(r"Dynamo does not support next\(\) on (\w+)|'(\w+)' implements '__next__' in C and Dynamo has no model"),
     lambda m: f"calls next() on a Python {(m.group(1) or m.group(2)).replace('_', ' ')}, which dynamo cannot trace",
     UNTRACEABLE_PYTHON),
    (re.compile(r"'(\w+)' implements '(\w+)' in C and Dynamo has no model"),
     lambda m: f"uses {m.group(1)}.{m.group(2)}, which is written in C and which dynamo cannot trace",
     UNTRACEABLE_PYTHON),
    # torch 2.15's dynamo where kornia's containers loop over a generator of their child modules (2.13.0 broke
    # at the generator itself): an object reached without a source dynamo can guard on, which it cannot wrap
    (re.compile(r"SourcelessBuilder\.create does not know how to wrap <class '(?:[\w.]+\.)?(\w+)'>"),
     lambda m: f"meets a {m.group(1)} object it cannot trace back to where it came from (e.g. a module a "
               "generator hands out), which dynamo cannot wrap", UNTRACEABLE_PYTHON),
    (re.compile(r"Dynamo does not know how to iterate over `\w*\((\w+)\)`"),
     lambda m: f"loops over a Python {m.group(1).replace('_', ' ')} object, which dynamo cannot trace",
     UNTRACEABLE_PYTHON),
    (re.compile(r"Dynamo recompile limit exceeded|exceeding the \w+ cache size limit"),
     "dynamo recompiled the same code more times than its recompile limit allows (a guard failed on each call, "
     "e.g. on a Python number that changes) and runs that code eagerly from then on", PYTHON_NUMBER),
    (re.compile(r"Attempt to trace generator|call_method on generator|Generator reconstruction"),
     "uses a Python generator in a way dynamo cannot trace", UNTRACEABLE_PYTHON),
    (re.compile(r"CUDA out of memory|DefaultCPUAllocator: can't allocate memory|OutOfMemoryError"),
     "ran out of memory with the probed inputs", UNCLASSIFIED),
    # onnx.checker (full_check runs ONNX's own shape inference over the exported graph)
    (re.compile(r"op_type:(\w+)[^\n]*?Inferred shape and existing shape differ in dimension (\d+): "
                r"\((\d+)\) vs \((\d+)\)"),
     lambda m: f"ONNX shape inference disagrees with torch on the output shape of {m.group(1)} "
               f"(dimension {m.group(2)}: ONNX {m.group(3)}, torch {m.group(4)})", TOOL_BUG),
    (re.compile(r"op_type:(\w+)[^\n]*?has unsupported type: tensor\((\w+)\)"),
     lambda m: f"ONNX {m.group(1)} does not accept {m.group(2)} tensors, yet the exporter emits it with one", TOOL_BUG),
    # onnxruntime refuses an input shape the exported model fixed (a symbolic batch baked to its traced size)
    (re.compile(r"Got invalid dimensions for input: (\w+) for the following indices\s+index: (\d+) Got: (\d+) "
                r"Expected: (\d+)"),
     lambda m: f"the exported model accepts only {m.group(4)} in dimension {m.group(2)} of {m.group(1)} "
               f"(got {m.group(3)})", BATCH_SPECIALISED),
    # onnxruntime at run time: "Non-zero status code returned while running Expand node ... Status Message: ..."
    (re.compile(r"while running (\w+) node[\s\S]*?Failed to allocate memory for requested buffer of size (\d+)"),
     lambda m: f"cannot allocate {human_bytes(int(m.group(2)))} for ONNX {m.group(1)}"
               + (" (ONNX Expand materialises a broadcast that torch keeps as a view)"
                  if m.group(1) == "Expand" else ""), RUNTIME_KERNEL),
    (re.compile(r"while running (\w+) node[^\n]*?Status Message: (?:\S+\.(?:cc|h):\d+ )?(?:[^\n(]*\([^\n)]*\) )?"
                r"([^\n]+)"),
     lambda m: f"ONNX {m.group(1)} fails: {clean_line(m.group(2), 110)}", RUNTIME_KERNEL),
    # torch 2.9.1's dynamo on kornia's PatchMix (`out[i, :, y : y + size]` with y from .item()): its fake tensors
    # reject an unbacked SymInt as an index (a plain script; torch 2.13.0 runs the same call)
    (re.compile(r"valid indices \(got SymInt\)"),
     "indexes a tensor at a position read from tensor values at run time (an .item() result), which "
     "torch.compile's tracer in this torch cannot do: it takes no such symbolic integer as an index", TOOL_BUG),
    # torch 2.9.1's dynamo when a frame it inlines asks to be skipped (kornia's AutoAugment): "SKIPPED INLINING
    # <code object forward_parameters at 0x..., file ".../kornia/augmentation/auto/base.py", line 201>: " and no
    # reason after the colon (a plain script's graph-break counter says the same)
    (re.compile(r'SKIPPED INLINING <code object (<?\w+>?)(?: at 0x[0-9a-fA-F]+)?, file "([^"]*)", line (\d+)>'),
     lambda m: f"dynamo gives up tracing into {_code_label(m.group(1))} ({_source_label(m.group(2))}:{m.group(3)}) "
               "and runs it outside the graph (dynamo's 'SKIPPED INLINING', which gives no reason)", UNCLASSIFIED),
    # torch 2.13 re-raises an error from inside dynamo as InternalTorchDynamoError named after it; with no message
    # (a library object refusing what dynamo asked of it, when the traceback does not show which:
    # refused_by_an_object below) the raw text said nothing
    (re.compile(r"InternalTorchDynamoError: (\w+):?[ \t]*(?:\n|$)"),
     lambda m: f"torch.compile's tracer (dynamo) failed inside itself with a {m.group(1)} that carries no message; "
               "the same call runs eagerly", TOOL_BUG),
    # last: a more specific rule above may know why the op failed on fake tensors (kornia's RANSAC calls
    # torch.rand with a sample count computed at run time)
    (re.compile(r"Dynamo failed to run FX node with fake tensors: call_function <(?:built-in method|function) (\w+)"),
     lambda m: f"torch.compile's tracer fails to run {torch_name(m.group(1))} on the traced (fake) tensors here; "
               "the same call runs eagerly", _named(UNCLASSIFIED)),
]


_CODE_WORDS = {"<listcomp>": "a list comprehension", "<dictcomp>": "a dict comprehension",
               "<setcomp>": "a set comprehension", "<genexpr>": "a generator expression", "<lambda>": "a lambda"}


def _code_label(name: str) -> str:
    """A code object's name for a person: ``forward()``, or what ``<listcomp>`` is."""
    return _CODE_WORDS.get(name, f"{name}()")


def _source_label(path: str) -> str:
    """A source file as the library knows it (``kornia/augmentation/auto/base.py``), no machine path.

    The rules know no library root, so the file's own package tells: the path from the outermost folder of
    its chain of ``__init__.py`` folders. That holds for a checkout (a maintainer's editable install) as
    much as for site-packages; a path that is not on this machine falls back to site-packages, then the
    file's name."""
    if os.path.isfile(path):
        module, base = module_for_file(Path(path))
        if "." in module:  # inside a package; a lone module keeps the rules below
            return Path(path).resolve().relative_to(base).as_posix()
    posix = path.replace("\\", "/")
    for marker in ("site-packages/", "dist-packages/"):
        if marker in posix:
            return posix.rsplit(marker, 1)[1]
    return posix.rsplit("/", 1)[-1]


def human_bytes(size: int) -> str:
    """18014398509481984 -> "16 PiB"."""
    if size < 1024:
        return f"{size} bytes"
    value = size / 1024
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            return f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.3g} PiB"


# internal noise to drop from a fallback line
_PATH_IN_TEXT = re.compile(r"""(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+(?:site-packages|dist-packages|lib)[/\\][^\s"',)]*""")
_TORCH_PATH = re.compile(  # "(_export/non_strict_utils.py:1205 in __torch_function__)" and the like
    r"""\(?[\w./\\-]*(?:torch|onnxscript|onnx|onnxruntime|_export|_dynamo|_inductor)[/\\][\w./\\-]+\.py"""
    r"""(?::\d+)?(?: in \w+)?\)?""")
_OBJECT_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_HINT_TAIL = re.compile(
    r"\s*(Set TORCHDYNAMO_VERBOSE|For more information|Caused by|Explanation:|Hint:|Developer debug).*$")


def clean_line(text: str, limit: int = MAX_REASON) -> str:
    """One readable line: no internal paths, no object addresses, no newlines, at most ``limit`` chars."""
    line = ""
    for candidate in text.splitlines():
        if candidate.strip():
            line = candidate.strip()
            break
    line = _HINT_TAIL.sub("", line)
    line = _TORCH_PATH.sub("", line)
    line = _PATH_IN_TEXT.sub("", line)
    line = _OBJECT_ADDRESS.sub("", line)
    line = re.sub(r"\s+", " ", line).strip(" :;,")
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def exception_chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, outermost first (cycles cut).

    dynamo raises ``BackendCompilerFailed`` ``from None`` and keeps the backend's own exception (inductor's
    real error) as ``inner_exception``: that is followed as a cause, so the reason is inductor's error, not
    "backend='inductor' raised"."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        chain.append(current)
        seen.add(id(current))
        inner = getattr(current, "inner_exception", None)
        current = (inner if isinstance(inner, BaseException) else None) or current.__cause__ or (
            None if current.__suppress_context__ else current.__context__)
    return chain


def _chain_text(chain: list[BaseException]) -> str:
    return "\n".join(f"{type(e).__name__}: {e}" for e in chain)


class Explained(NamedTuple):
    """A failure in words for people, and its cause as a record (its class per path and what it names)."""

    words: str
    cause: CauseKind


def _known(text: str) -> Explained | None:
    """The table's reason and cause for ``text``, or None when no rule matches."""
    for pattern, reason, cause in _RULES:
        match = pattern.search(text)
        if match:
            return Explained(reason if isinstance(reason, str) else reason(match),
                             cause if isinstance(cause, CauseKind) else cause(match))
    return None


def known_cause(text: str) -> str:
    """The table's reason for ``text``, or "" when no rule matches."""
    found = _known(text)
    return found.words if found else ""


# torch's own words that tell a cause where no rule above rewords them (the reason keeps torch's line)
_UNWORDED: list[tuple[re.Pattern[str], CauseKind]] = [
    (re.compile(r"^\[(?:TypeInferenceError|ShapeInferenceError)\]"), TOOL_BUG),  # onnx.checker's inference
    (re.compile(r"Numpy_type \d+ can't be converted to MLDataType"), RUNTIME_KERNEL),  # onnxruntime: complex64
    (re.compile(r"Uninitialized nn\.Module|Failed to convert args/kwargs to proxy|constructor with Dynamo|"
                r"context manager"), UNTRACEABLE_PYTHON),
]


def _as_torch_says(line: str) -> Explained:
    """A reason no rule words: torch's own line, and the cause its words tell, else unclassified."""
    return Explained(line, next((cause for pattern, cause in _UNWORDED if pattern.search(line)), UNCLASSIFIED))


def _root_line(chain: list[BaseException]) -> str:
    # the root cause, unless its message is empty (then the nearest one that says something)
    for exc in reversed(chain):
        line = clean_line(str(exc))
        if line:
            return f"{type(exc).__name__}: {line}" if type(exc).__name__ not in line else line
    return type(chain[-1]).__name__


def explain(exc: BaseException) -> Explained:
    """The user-facing reason for a failure, and its cause."""
    chain = exception_chain(exc)
    refused = refused_by_an_object(chain)
    if refused:
        return Explained(refused, UNTRACEABLE_PYTHON)
    return _known(_chain_text(chain)) or _as_torch_says(clean_line(_root_line(chain)))


def explain_exception(exc: BaseException) -> str:
    """The user-facing reason for a failure."""
    return explain(exc).words


# what dynamo asked of an object, by the special method that refused it
_ASKED = {"__len__": "len()", "__iter__": "iteration", "__eq__": "==", "__ne__": "!=", "__bool__": "bool()",
          "__hash__": "hash()", "__contains__": "`in`", "__getitem__": "indexing", "__repr__": "repr()",
          "__index__": "int()", "__int__": "int()", "__float__": "float()"}
_DYNAMO_FILE = re.compile(r"[/\\]torch[/\\]_dynamo[/\\](\w+)\.py$")
_TORCH_FILE = re.compile(r"[/\\]torch[/\\]")


def refused_by_an_object(chain: list[BaseException]) -> str:
    """dynamo asked a library's object for ``len()`` (``==``, iteration ...) and the object refused it on purpose
    (e3nn's ``Irrep`` raises NotImplementedError from ``len()``): the root cause's traceback shows dynamo's frame
    calling the object's special method. Torch wraps that as "InternalTorchDynamoError: NotImplementedError",
    which says nothing; "" when the traceback shows no such call."""
    for exc in reversed(chain):
        frames = []
        tb = exc.__traceback__
        while tb is not None:
            frames.append(tb.tb_frame)
            tb = tb.tb_next
        for caller, callee in zip(frames, frames[1:]):
            asked = _ASKED.get(callee.f_code.co_name)
            dynamo = _DYNAMO_FILE.search(caller.f_code.co_filename)
            if (not asked or not dynamo or _TORCH_FILE.search(callee.f_code.co_filename)
                    or "self" not in callee.f_locals):
                continue  # not dynamo calling a library object's special method
            owner = type(callee.f_locals["self"])
            who = "dynamo's guards call" if dynamo.group(1) == "guards" else "dynamo calls"
            raised = type(exc).__name__  # dynamo re-raises it as its own error, named first in the message
            if raised == "InternalTorchDynamoError":
                raised = str(exc).split(":", 1)[0].strip() or raised
            return (f"{who} {asked} on {owner.__module__}.{owner.__qualname__}, which refuses it "
                    f"({raised}); the same call runs eagerly")
    return ""


# a dynamo graph-break message: "<graph-break type>\n  Explanation: <what dynamo could not do>\n  Hint: ..."
_DYNAMO_EXPLANATION = re.compile(r"^\s*([^\n]+)\n\s*Explanation:\s*([^\n]+)")


def explain_message(text: str) -> Explained:
    """The user-facing reason for a message that is not an exception (a dynamo break reason), and its cause.

    A dynamo message no rule knows keeps dynamo's own explanation, which says more than its type line."""
    known = _known(text)
    if known:
        return known
    match = _DYNAMO_EXPLANATION.match(text)
    if match:
        return _as_torch_says(clean_line(f"{match.group(1).strip().rstrip('.')}: {match.group(2)}"))
    return _as_torch_says(clean_line(text))


def explain_text(text: str) -> str:
    """The user-facing reason for a message that is not an exception (a dynamo break reason)."""
    return explain_message(text).words


# How a batch size became a constant, recognised from the source line that did it, else from the torch
# functions on the stack at that moment. (kind, pattern over the line, torch function names)
_SPECIALISERS: list[tuple[str, re.Pattern[str], tuple[str, ...]]] = [
    ("a Python loop over it", re.compile(r"^\s*for\b|\bfor\b.+\bin\b|\brange\("), ("call_range",)),
    ("a Python branch on it", re.compile(r"^\s*(if|elif|while|assert)\b|\bif\b.+\belse\b"),
     ("__bool__", "guard_bool", "generic_jump")),
    ("a conversion to a Python number", re.compile(r"\b(int|float|round)\(|\bmath\.\w+\(|\.(item|tolist)\("),
     ("__int__", "__index__", "guard_int", "__float__", "guard_float")),
    ("a view or reshape of fixed size",
     re.compile(r"\.(view|reshape|expand|expand_as|view_as|unflatten|flatten|repeat|tile|unfold)\(|"
                r"\btorch\.(reshape|broadcast_to)\("),
     ("_reshape_view_helper", "infer_size", "view", "reshape", "expand")),
    ("a constant of fixed size",
     re.compile(r"\btorch\.(full|zeros|ones|empty|arange|tensor|eye|linspace|as_tensor)\w*\(|\bnew_\w+\("), ()),
]


def batch_specialisation(line: str, torch_functions: list[str]) -> str:
    """Why a batch size became a constant: "the batch size is specialised by a Python loop over it
    (`for i in range(x.shape[0])`)", from the user's source line and the torch functions on the stack."""
    kind = next((k for k, pattern, _ in _SPECIALISERS if line and pattern.search(line)), "")
    if not kind:
        names = set(torch_functions)
        kind = next((k for k, _, functions in _SPECIALISERS if names & set(functions)), "")
    text = "the batch size is specialised by " + (kind or "the traced code")
    if line:
        text += f" (`{clean_line(line, 80)}`)"
    return text
