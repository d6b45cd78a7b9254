"""Small inputs are written into the repro as their exact values, bit for bit, in every dtype."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.cases.call_source import call_source  # noqa: E402
from sphinx_kexport.probe.cases.literals import SMALL_TENSOR  # noqa: E402


def rebuilt_inputs(values):
    spec = case("identity", torch.nn.Identity(), values, package="probe_cases.literals")
    source = call_source(spec)
    namespace: dict = {}
    exec(source, namespace)
    return source, namespace["inputs"]


def bits(t):
    return t.view(torch.int16 if t.element_size() == 2 else torch.int32 if t.element_size() == 4 else torch.int64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_float_values_come_back_bit_for_bit(dtype):
    generator = torch.Generator().manual_seed(7)
    values = (torch.randn(SMALL_TENSOR - 6, generator=generator) * 1e3).to(dtype)
    tricky = torch.tensor([1 / 3, -0.0, 1e-40, 65504.0, 3.4028234663852886e38, 0.1], dtype=torch.float64)
    x = torch.cat([values, tricky.to(dtype)]).reshape(2, -1)
    source, (y,) = rebuilt_inputs([x])
    assert "torch.rand" not in source and y.dtype == dtype and y.shape == x.shape
    assert torch.equal(bits(y), bits(x))


def test_non_finite_integer_and_bool_values_and_empty_tensors():
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 2.5])
    ints = torch.tensor([[-3, 2 ** 40], [0, 7]])
    flags = torch.tensor([True, False])
    empty = torch.zeros(0, 3, dtype=torch.int32)
    source, (a, b, c, d) = rebuilt_inputs([x, ints, flags, empty])
    assert "torch.rand" not in source
    assert torch.equal(torch.isnan(a), torch.isnan(x)) and torch.equal(a[1:], x[1:])
    assert torch.equal(b, ints) and torch.equal(c, flags)
    assert d.shape == empty.shape and d.dtype == torch.int32


def test_a_large_input_without_a_case_module_is_said_to_be_random():
    source, (y,) = rebuilt_inputs([torch.rand(SMALL_TENSOR + 1)])
    assert "# random values of the probed shapes and dtypes" in source and y.shape == (SMALL_TENSOR + 1,)
