import pytest
import torch


@pytest.fixture(autouse=True, params=["float32", "float64"])
def precision(request):
    """Every test in both dtypes, set as the default dtype (as e3nn's float_tolerance does)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, request.param))
    yield request.param
    torch.set_default_dtype(before)
