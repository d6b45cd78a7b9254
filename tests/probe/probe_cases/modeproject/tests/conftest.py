import pytest
import torch


@pytest.fixture(autouse=True, params=["float32", "float64"])
def tolerance(request):
    """Every test in both dtypes, set as the default dtype (e3nn's float_tolerance): no parameter says dtype."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, request.param))
    yield 1e-5 if request.param == "float32" else 1e-10
    torch.set_default_dtype(before)
