"""A large model's memory while it is measured: the ONNX model goes through a file, and each step's copy of the
weights is freed when the step is over (real torch, the real exporter and onnxruntime, in this process).

The model is a 256 MiB embedding. Before, the ONNX path held the model, its copy, the exporter's ModelProto,
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
from sphinx_kexport.probe.run.memory import peak_rss_kb, reset_peak, rss_kb  # noqa: E402

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


def test_a_large_model_exports_with_two_copies_at_most_and_leaves_none_behind(model):
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
    # the path's copy and onnxruntime's weights, plus working memory; not a proto and two serialisations more
    assert grown < 3 * MODEL_KB, f"the paths grew the process by {grown / MODEL_KB:.1f} models"
    gc.collect()
    left = rss_kb() - before
    assert left < MODEL_KB // 2, f"{left / MODEL_KB:.1f} models' worth of memory outlived the paths"
    # the case's own model is never freed: only the copies the steps made
    assert model.table.weight.shape == (ROWS, WIDTH)
    assert torch.equal(model(IDS), expected)


def test_release_frees_only_the_copies_and_a_small_model_is_left_alone(model):
    run = CaseRun(case("Embedder", model, [IDS], package="tests"), "cpu")
    copy = run.wrapper().target
    assert copy is not model and copy.table.weight.untyped_storage().nbytes() == MODEL_KB * 1024
    run.release()
    assert copy.table.weight.untyped_storage().nbytes() == 0
    assert model.table.weight.untyped_storage().nbytes() == MODEL_KB * 1024

    small = torch.nn.Linear(4, 4)
    small_run = CaseRun(case("small", small, [torch.ones(1, 4)], package="tests"), "cpu")
    small_copy = small_run.wrapper().target
    small_run.release()
    assert small_copy.weight.untyped_storage().nbytes() == 4 * 4 * 4  # below the threshold: untouched
