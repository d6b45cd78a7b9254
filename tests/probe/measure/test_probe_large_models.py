"""A large model's memory while it is measured: the ONNX model goes through a file, and each step's copy of the
weights is freed when the step is over (real torch, the real exporter and onnxruntime, in this process).

The model is a 256 MiB embedding. Each step's copy of it shares its parameters (cases/module_copy.py). Before, the ONNX
path held the model, its copy, the exporter's ModelProto,
its serialisation for the checker and for onnxruntime, and onnxruntime's own copy (kornia's 1.5 GB
SigLip2Model peaked at 8.9 GB in its worker), and the exporter kept the last copy's weights after the path.
"""

from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.case_run import CaseRun  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402
from sphinx_kexport.probe.base.memory import peak_rss_kb, reset_peak, rss_kb  # noqa: E402

ROWS, WIDTH = 262_144, 256  # float32: 256 MiB
MODEL_KB = ROWS * WIDTH * 4 // 1024


class Embedder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(ROWS, WIDTH)

    def forward(self, ids):
        return self.table(ids).sum(-1)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return Embedder().eval()


IDS = torch.tensor([[1, 5, 70_000], [262_143, 0, 9]])


def test_a_large_model_exports_without_a_copy_of_its_weights_and_leaves_nothing_behind(model):
    spec = case("Embedder", model, [IDS], package="tests")
    expected = model(IDS).detach().clone()
    # the first export of a process imports the exporter and builds its registries: not the model's memory
    warm_up = case("small", torch.nn.Linear(4, 4), [torch.ones(1, 4)], package="tests")
    Measurement(warm_up, "cpu", 18, library_root(""), dynamic=False).measure(["onnx", "export"])
    gc.collect()
    before = rss_kb()
    reset_peak()
    results = Measurement(spec, "cpu", 18, library_root(""), dynamic=False).measure(["onnx", "export"])
    grown = peak_rss_kb() - before
    assert results["onnx"]["status"] == "ok", results["onnx"]
    assert results["export"]["status"] == "ok", results["export"]
    # working memory only: each step's copy shares the weights (module_copy; 2.0 models without), onnxruntime
    # reads them from the file as the graph needs them, and there is no proto and two serialisations more
    assert grown < MODEL_KB // 2, f"the paths grew the process by {grown / MODEL_KB:.1f} models"
    gc.collect()
    left = rss_kb() - before
    assert left < MODEL_KB // 2, f"{left / MODEL_KB:.1f} models' worth of memory outlived the paths"
    # the case's own model is never freed: only the copies the steps made
    assert model.table.weight.shape == (ROWS, WIDTH)
    assert torch.equal(model(IDS), expected)


class Counting(torch.nn.Module):
    """A large weight and a buffer its forward changes (as running statistics and caches do)."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(ROWS, WIDTH)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, ids):
        self.calls += 1
        return self.table(ids).sum(-1)


def test_a_large_models_copy_shares_its_parameters_but_not_its_buffers_and_release_keeps_them():
    model = Counting().eval()
    run = CaseRun(case("Counting", model, [IDS], package="tests"), "cpu")
    wrapper = run.wrapper()
    copied = wrapper.target
    assert copied is not model and copied.table.weight is model.table.weight  # no second 256 MiB
    assert copied.calls is not model.calls
    wrapper(IDS)
    assert copied.calls.item() == 1 and model.calls.item() == 0  # the step's state stays in its copy
    run.release()
    assert model.table.weight.untyped_storage().nbytes() == MODEL_KB * 1024  # shared: never freed

    small = torch.nn.Linear(4, 4)
    small_run = CaseRun(case("small", small, [torch.ones(1, 4)], package="tests"), "cpu")
    small_copy = small_run.wrapper().target
    assert small_copy.weight is not small.weight  # below the threshold: a whole copy, as before
    small_run.release()
    assert small_copy.weight.untyped_storage().nbytes() == 4 * 4 * 4  # and left alone


def test_a_recorded_method_of_a_large_module_shares_its_parameters():
    """Discovery binds a recorded ``model.method(...)`` to a copy of the model as it was (kornia's
    ``SigLip2Model.get_image_features``): the copy shares a large model's parameters, as a recorded call does."""
    from sphinx_kexport.probe.discover.recording.recording import _copy_bound

    model = Counting().eval()
    bound = _copy_bound(model.forward)
    assert bound.__self__ is not model and bound.__self__.table.weight is model.table.weight
    assert bound.__self__.calls is not model.calls
    small = torch.nn.Linear(4, 4)
    assert _copy_bound(small.forward).__self__.weight is not small.weight  # below the threshold: a whole copy


class Shifted:
    """A plain object whose method changes it in place (as kornia's ``Boxes.transform_boxes_`` does)."""

    def __init__(self) -> None:
        self.data = torch.zeros(3)

    def shift_(self, by):
        self.data += by
        return self.data


def test_every_step_binds_a_method_to_its_own_copy_of_the_object():
    shifted = Shifted()
    run = CaseRun(case("Shifted.shift_", shifted.shift_, [torch.ones(3)], package="tests"), "cpu")
    first, second = run.wrapper(), run.wrapper()
    outputs = [wrapper(torch.ones(3)) for wrapper in (first, second)]  # the wrapper returns a tuple of outputs
    assert all(torch.equal(torch.stack(list(out)).flatten(), torch.ones(3)) for out in outputs)
    assert torch.equal(shifted.data, torch.zeros(3))  # the recorded object is left as it was
