"""Dynamo breaks that the kornia survey showed in dynamo's own words, now worded by the probe (issue 11's review).

Each case is a tiny torch-only module that makes real dynamo (torch.compile, backend="eager") break the
same way a kornia operator did; the reason the probe derives must say the cause in words, not repeat
dynamo's graph-break type line ("Data dependent operator: Operator `aten.equal.default` ...").
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe.measure import graph_breaks  # noqa: E402
from sphinx_kexport.probe.measure.explain import explain_text  # noqa: E402

DYNAMO_TYPE_LINES = ("Data dependent operator", "Missing tp_iternext", "missing tp_iter", "Dynamo recompile limit",
                     "Explanation", "VariableTracker", "aten.")


def _run(call):
    return call()


def _first_break_reason(module, *inputs):
    exc, whole = graph_breaks.first_break(module, inputs, _run)
    assert not whole and exc is not None, "dynamo was expected to break"
    return graph_breaks.reason_of(exc)


def _assert_worded(reason):
    assert reason and not any(sign in reason for sign in DYNAMO_TYPE_LINES), reason


class _Equal(torch.nn.Module):
    def forward(self, x):
        return x + 1 if torch.equal(x, x * 1) else x


class _AllClose(torch.nn.Module):
    def forward(self, x):
        return x + 1 if torch.allclose(x, x * 1) else x


class _NextOnListIterator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factors = iter([1.0, 2.0])

    def forward(self, x):
        return x * next(self.factors)


class _NextOnGenerator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factors = (f for f in (1.0, 2.0))

    def forward(self, x):
        return x * next(self.factors)


class _LoopOverGenerator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factors = (f for f in (1.0, 2.0))

    def forward(self, x):
        for f in self.factors:
            x = x * f
        return x


@pytest.mark.parametrize("module, operator", [(_Equal(), "torch.equal"), (_AllClose(), "torch.allclose")])
def test_a_data_dependent_operator_break_names_the_public_operator(module, operator):
    reason = _first_break_reason(module, torch.randn(4))
    _assert_worded(reason)
    assert reason == f"{operator} produces a Python value from tensor values (no graph output)"


@pytest.mark.parametrize("module, words", [(_NextOnListIterator(), "calls next() on a Python list iterator"),
                                           (_NextOnGenerator(), "calls next() on a Python generator"),
                                           (_LoopOverGenerator(), "loops over a Python generator object")])
def test_an_iterator_dynamo_cannot_step_is_worded(module, words):
    reason = _first_break_reason(module, torch.randn(4))
    _assert_worded(reason)
    assert reason.startswith(words) and reason.endswith("which dynamo cannot trace")


def test_the_recompile_limit_is_worded_from_dynamos_own_record():
    graph_breaks.start_recording()
    compiled = torch.compile(lambda x, n: x * n, backend="eager")
    with torch._dynamo.config.patch(recompile_limit=1):
        for n in range(3):
            compiled(torch.randn(2), n)
    record = graph_breaks.recorded()
    torch._dynamo.reset()
    reasons = graph_breaks.reasons(None, record)
    assert len(reasons) == 1, reasons
    _assert_worded(reasons[0])
    assert "recompile limit" in reasons[0] and "eagerly" in reasons[0]


def test_unique_is_named_by_its_public_name():
    reason = explain_text("Dynamic shape operator\n  Explanation: Operator `aten._unique2.default`'s output shape "
                          "depends on input Tensor data.")
    assert reason == "the output shape depends on tensor values (torch.unique)"


class _GroupsFromBatch(torch.nn.Module):
    """As kornia's filter2d with one kernel per sample: the convolution's groups is batch x channels."""

    def forward(self, x):
        b, c, h, w = x.shape
        kernel = torch.ones(b * c, 1, 3, 3) / 9
        return torch.nn.functional.conv2d(x.reshape(1, b * c, h, w), kernel, groups=kernel.size(0))


def test_an_onnx_attribute_computed_from_a_dynamic_batch_is_worded():
    from sphinx_kexport.probe.measure.explain import explain_exception

    dims = ({0: torch.export.Dim.DYNAMIC},)
    with pytest.raises(Exception) as caught:
        torch.onnx.export(_GroupsFromBatch(), (torch.rand(2, 3, 8, 8),), dynamo=True, report=False, verbose=False,
                          dynamic_shapes=dims)
    reason = explain_exception(caught.value)
    assert reason.startswith("the ONNX exporter needs an operator argument"), reason


class _ResultType(torch.nn.Module):
    def forward(self, x):
        return x.to(torch.result_type(x, 1.0))


def test_a_torch_call_returning_a_dtype_is_worded_with_its_name():
    reason = _first_break_reason(_ResultType(), torch.randn(4))
    _assert_worded(reason)
    assert reason == "torch.result_type returns a torch.dtype, not a tensor, which dynamo cannot put in its graph"


def test_module_to_under_torch_2_9_is_worded():
    # the graph-break record torch 2.9.1's dynamo made of kornia's batched_forward (`model.to(device)`: Module.to
    # parses its arguments with a torch call that returns a device); torch 2.13 compiles the call whole
    record = ("torch.* op returned non-Tensor\n  Explanation: torch.* ops that return a non-Tensor cannot be traced "
              "into the Dynamo FX graph output\n\n\n  Developer debug context: example_value type: device; op: "
              "call_function; target: <built-in function getitem>\n\n For more details about this graph break, "
              "please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0208.html")
    assert explain_text(record) == ("a torch call returns a torch.device, not a tensor, which dynamo cannot put in "
                                    "its graph")
