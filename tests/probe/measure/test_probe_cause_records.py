"""The probe names each failure's cause as a record beside its words (snapshot/causes.py): real torch failures
measured in process, their ``cause`` written on the result, and the class the page shows for them is the one
the record names."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from probe_cases.wordlib.base import ShuffledMean  # noqa: E402
from probe_cases.wordlib.gmsd import CheckedGradientLoss  # noqa: E402

from sphinx_kexport.page.model.fixes import detail_fixes  # noqa: E402
from sphinx_kexport.page.model.page_model import build_model  # noqa: E402
from sphinx_kexport.page.model.payloads import row_payload  # noqa: E402
from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402
from sphinx_kexport.snapshot import build, normalise  # noqa: E402
from sphinx_kexport.snapshot.vocabulary import ORIGIN_HAND  # noqa: E402

pytestmark = pytest.mark.probe

PACKAGE = "probe_cases.wordlib"
OK = {"status": "ok", "detail": "", "stage": "", "where": ""}


def _measured(spec, path: str) -> dict:
    return Measurement(spec, "cpu", 18, library_root("probe_cases"), dynamic=False).measure([path])[path]


def _page_classes(name: str, path: str, result: dict) -> list[str]:
    """The classes the page's Details show for a snapshot holding ``result`` on ``path``."""
    env = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "cpu", "opset": 18, "probed_at": "2026-11-29"}
    paths = {"onnx": OK, "export": OK, "compile": dict(OK, graph_breaks=0)}
    paths[path] = result
    data, _ = normalise({"schema": 2, "generated_at": "2026-11-29", "complete": True,
                         "library": {"name": "probe_cases", "version": "1", "revision": "abc"},
                         "environments": {"cpu": env},
                         "cases": [{"name": name, "package": PACKAGE, "section": "", "operator": name, "variant": "",
                                    "ref": "", "note": "", "origin": ORIGIN_HAND, "results": {"cpu": paths}}]})
    row = row_payload(next(iter(build_model(build(data, "causes.json")).rows)))
    cells = {c["key"]: c for c in row["cells"]}
    return [fix["id"] for detail in row["details"] for fix in detail_fixes(detail, cells)]


def test_an_operator_without_an_onnx_lowering_names_its_class_and_operator():
    spec = case("ShuffledMean", ShuffledMean(), [torch.rand(4, 3)], package=PACKAGE, check=False)
    result = _measured(spec, "onnx")
    assert (result["status"], result["detail"]) == ("fail", "no ONNX lowering for torch.randperm")
    assert result["cause"] == {"id": "onnx-lowering", "operator": "torch.randperm"}
    assert _page_classes("ShuffledMean", "onnx", result) == ["onnx-lowering"]


def test_a_branch_on_tensor_values_names_its_class_per_path():
    spec = case("CheckedGradientLoss", CheckedGradientLoss(), [torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)],
                package=PACKAGE)
    compiled = _measured(spec, "compile")
    assert compiled["status"] == "ok-breaks"  # fullgraph=True fails at the branch: a red cell
    assert compiled["cause"] == {"id": "tensor-branch"}
    # the page splits the branch by its statement (`if ...: raise`: a value check), as the lookup does
    assert _page_classes("CheckedGradientLoss", "compile", compiled) == ["value-check"]
    exported = _measured(spec, "export")
    assert exported["status"] == "fail"
    assert exported["cause"] == {"id": "data-dependent-guard"}
    assert _page_classes("CheckedGradientLoss", "export", exported) == ["data-dependent-guard"]


def test_a_result_that_holds_carries_no_cause():
    spec = case("ShuffledMean", ShuffledMean(), [torch.rand(4, 3)], package=PACKAGE, check=False)
    assert "cause" not in _measured(spec, "export")
