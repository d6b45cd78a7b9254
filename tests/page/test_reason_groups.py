"""The reason index groups reasons that differ only in names, numbers and shapes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.page.model.reason_groups import build_index, normalise, reason_id, row_reason_ids
from sphinx_kexport.snapshot import build, normalise as normalise_snapshot

# Kornia's committed snapshot, 17 records verbatim (copied from shared/fixtures)
FIXTURE = Path(__file__).resolve().parent / "roots" / "test-kornia" / "_data" / "export_support.json"


def _snapshot(cases):
    env = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "cpu", "opset": 18, "probed_at": "2026-11-29"}
    data = {"schema": 1, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
            "cases": cases}
    data, fmt = normalise_snapshot(data)
    return build(data, "t.json")


def _case(name, onnx=("ok", ""), export=("ok", ""), compile=("ok", "")):
    def res(pair):
        return {"status": pair[0], "detail": pair[1], "stage": "translate" if pair[0] == "fail" else "",
                "where": ""}
    return {"name": name, "package": "lib.a", "section": "", "operator": name, "variant": "", "ref": "",
            "note": "", "results": {"cpu": {"onnx": res(onnx), "export": res(export),
                                            "compile": res(compile) | {"graph_breaks": 0}}}}


def test_names_numbers_shapes_and_paths_are_normalised():
    assert normalise("no ONNX lowering for torch.linalg.svd") == normalise("no ONNX lowering for torch.histc")
    assert normalise("out0: shape (1, 3, 4) vs (1, 3)") == normalise("out1: shape (2, 2) vs [5, 5]")
    assert normalise("max abs diff 1.2e-02 at 3/48 elements") == "max abs diff ‹n› at ‹n›/‹n› elements"
    assert normalise("failed in kornia/filters/blur.py:12") == normalise("failed in kornia/color/hsv.py:7")
    # Words are kept: different causes stay different entries.
    assert normalise("a Python branch tests tensor values") != normalise("a Python integer is read back")


def test_index_counts_per_column_most_frequent_first_and_links_rows():
    snap = _snapshot([
        _case("svd", onnx=("fail", "no ONNX lowering for torch.linalg.svd")),
        _case("histc", onnx=("fail", "no ONNX lowering for torch.histc"),
              export=("fail", "a Python branch (if / while) tests tensor values at run time")),
        _case("solve", onnx=("fail", "no ONNX lowering for torch.linalg.solve")),
        _case("fine"),
        _case("mm", compile=("mismatch", "runs, but the result differs from eager: max abs diff 1.0e-01")),
    ])
    model = build_model(snap)
    index = build_index(model)
    assert [e.total for e in index] == [3, 1, 1]
    top = index[0]
    assert top.text == "no ONNX lowering for ‹name›"
    assert top.per_column == {"onnx-cpu": 3}
    assert sorted(top.examples) == sorted(["no ONNX lowering for torch.linalg.svd",
                                           "no ONNX lowering for torch.histc",
                                           "no ONNX lowering for torch.linalg.solve"])
    assert top.rows == ["kx-histc", "kx-solve", "kx-svd"]  # page order: sorted by operator
    assert top.id == reason_id(top.text)
    back = row_reason_ids(model)
    assert back["kx-svd"]["no ONNX lowering for torch.linalg.svd"] == top.id
    assert "kx-fine" not in back


def test_index_ignores_supported_and_na_cells():
    snap = _snapshot([_case("skip", onnx=("n/a", "file I/O"), export=("n/a", "file I/O"),
                            compile=("n/a", "file I/O")),
                      _case("rand", onnx=("ok-unverified", "random operator: only shapes checked"))])
    assert build_index(build_model(snap)) == []


def test_index_on_kornia_fixture_is_stable_across_builds():
    data = json.loads(FIXTURE.read_text())
    d1, f1 = normalise_snapshot(copy.deepcopy(data))
    d2, f2 = normalise_snapshot(copy.deepcopy(data))
    a = build_index(build_model(build(d1, "a")))
    b = build_index(build_model(build(d2, "b")))
    assert [(e.id, e.total, e.rows) for e in a] == [(e.id, e.total, e.rows) for e in b]
    assert a, "the fixture has failures, so the index is not empty"


# Reasons as the probe writes them (tests/probe_cases/basic_cases.py and the kornia survey)
CHECKER = ("onnx.checker rejects the exported graph: ONNX shape inference disagrees with torch on the output shape "
           "of MaxPool (dimension 2: ONNX 4, torch 3)")
KERNEL = ("onnxruntime has no kernel for ONNX Erf (opset 13) with the input types used here (often float64 or "
          "bfloat16)")


def test_tool_and_dtype_names_are_not_placeholders():
    assert normalise(CHECKER) == ("onnx.checker rejects the exported graph: ONNX shape inference disagrees with "
                                  "torch on the output shape of MaxPool (dimension ‹n›: ONNX ‹n›, torch ‹n›)")
    assert normalise(KERNEL) == ("onnxruntime has no kernel for ONNX Erf (opset ‹n›) with the input types used "
                                 "here (often float64 or bfloat16)")
    int64 = normalise("ONNX TopK does not accept int64 tensors, yet the exporter emits it with one")
    assert "int64" in int64 and normalise("ONNX TopK does not accept float32 tensors, yet the exporter emits "
                                          "it with one") != int64
    assert normalise("torch.export cannot capture it") != normalise("torch.compile cannot capture it")
    assert normalise("inductor bug: x") != normalise("dynamo bug: x")


EXAMPLE = Path(__file__).resolve().parents[2] / "example_docs" / "_data" / "export_support.json"


def test_what_varies_still_merges_on_the_kornia_reasons():
    data = json.loads(EXAMPLE.read_text())  # the kornia survey, format 1
    details = {r["detail"] for c in data["cases"] for paths in c.get("results", {}).values()
               for r in paths.values() if r.get("status") in ("fail", "mismatch") and r.get("detail")}
    lowering = {d for d in details if d.startswith("no ONNX lowering for torch.")}
    assert len(lowering) >= 5 and {normalise(d) for d in lowering} == {"no ONNX lowering for ‹name›"}
    assert normalise("3 graph breaks: the output shape depends on tensor values (torch.nonzero)") == \
        normalise("26 graph breaks: the output shape depends on tensor values (aten._unique2)")


def test_a_recompile_reason_is_one_entry_whatever_its_names_numbers_and_paths():
    """As the probe words torch.compile's recompilation: every variable part is quoted code, a number or
    a library path; a single-module library's bare ``fsim.py:241`` is a path too (it was ‹name›:‹n›)."""
    tensor = ("recompiles at batch 3: the guard on `y.shape[0]` failed (compiled for 2), set by "
              "`for i in range(y.shape[0])` (piq/fsim.py:241), after the graph break at piq/fsim.py:230")
    number = ("recompiles at batch 5: the guard on `N` failed (compiled for 4), set by "
              "`sum_ai_aj = torch.zeros(N, orientations, 1, H, W).to(x)` (fsim.py:241), after the graph break at "
              "fsim.py:220")
    assert normalise(tensor) == normalise(number) == (
        "recompiles at batch ‹n›: the guard on ‹name› failed (compiled for ‹n›), set by ‹name› (‹path›), "
        "after the graph break at ‹path›")


def _caused(name, detail, cause):
    case = _case(name, onnx=("fail", detail))
    case["results"]["cpu"]["onnx"]["cause"] = cause
    return case


def test_a_snapshot_with_cause_records_groups_by_the_cause_whatever_its_words():
    """Records with a cause the probe named group by its id and fields, not by words: other words of the same
    cause are one entry, the same words of another operator's cause another."""
    svd = {"id": "onnx-lowering", "operator": "torch.linalg.svd"}
    snap = _snapshot([
        _caused("a", "no ONNX lowering for torch.linalg.svd", svd),
        _caused("b", "the ONNX exporter finds no ONNX overload of aten::_linalg_svd", svd),
        _caused("c", "no ONNX lowering for torch.histc", {"id": "onnx-lowering", "operator": "torch.histc"}),
    ])
    index = build_index(build_model(snap))
    assert [(e.total, e.by_cause, sorted(e.rows)) for e in index] == [(2, True, ["kx-a", "kx-b"]),
                                                                       (1, True, ["kx-c"])]
    assert index[0].text == "no ONNX lowering for an operator (torch.linalg.svd)"
    back = row_reason_ids(build_model(snap))
    assert back["kx-a"]["no ONNX lowering for torch.linalg.svd"] == back["kx-b"][
        "the ONNX exporter finds no ONNX overload of aten::_linalg_svd"] == index[0].id


def test_an_older_snapshot_without_cause_records_still_groups_by_its_words():
    """The same words without cause records (a cause read from words when the snapshot is read): as before
    cause records, what varies in names is one entry, other words another."""
    snap = _snapshot([_case("a", onnx=("fail", "no ONNX lowering for torch.linalg.svd")),
                      _case("b", onnx=("fail", "the ONNX exporter finds no ONNX overload of aten::_linalg_svd")),
                      _case("c", onnx=("fail", "no ONNX lowering for torch.histc"))])
    index = build_index(build_model(snap))
    assert [(e.total, e.by_cause, e.text) for e in index] == [
        (2, False, "no ONNX lowering for ‹name›"),
        (1, False, "the ONNX exporter finds no ONNX overload of ‹name›")]
