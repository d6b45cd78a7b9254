"""Writes _data/new.json and _data/old.json, the snapshots of the "beyond" scenario.

    python tests/roots/test-beyond/make_snapshots.py

Two devices. Between old and new: rgb_to_gray's torch.compile on CUDA
regressed; warp_affine's torch.export was fixed on both devices; blur is a
new case. Reasons that differ only in names merge in the reason index; one
reason, one call and one case name carry markup, and one reason a
spreadsheet formula, which must stay text everywhere.
"""

from __future__ import annotations

from pathlib import Path

from sphinx_kexport.snapshot import dump_snapshot

HERE = Path(__file__).resolve().parent
OK = {"status": "ok", "detail": "", "stage": "", "where": ""}
INJECTED = '<img src=x onerror="alert(1)"> guard on a symbolic size failed'


def fail(detail, stage="translate", where="", status="fail"):
    return {"status": status, "detail": detail, "stage": stage, "where": where}


def env(device):
    return {"torch": "2.13.0", "onnx": "1.21.0", "onnxruntime": "1.23.2", "onnxscript": "0.5.7",
            "python": "3.12.3", "platform": "Linux-x86_64", "device_name": f"test {device}",
            "opset": 18 if device == "cpu" else 20, "probed_at": "2026-11-29T10:00:00Z"}


def paths(onnx=OK, export=OK, compile=OK, breaks=0):
    return {"onnx": dict(onnx), "export": dict(export), "compile": dict(compile) | {"graph_breaks": breaks}}


def case(name, operator, package, results, variant="", call="", ref=None):
    entry = {"name": name, "package": package, "section": "", "operator": operator, "variant": variant,
             "ref": f"{package}.{operator}" if ref is None else ref, "note": "", "results": results,
             "inputs": [{"shape": [1, 3, 8, 8], "dtype": "float32"}]}
    if call:
        entry["call"] = call
    return entry


def call(ref):
    module, _, name = ref.rpartition(".")
    return f"import torch\nimport {module}\nfn = {ref}\ninputs = (torch.rand(1, 3, 8, 8),)"


def snapshot(generated_at, version, cases):
    return {"schema": 1, "generated_at": generated_at, "complete": True,
            "library": {"name": "beyondlib", "version": version, "revision": "abc" + version.replace(".", "")},
            "environments": {"cpu": env("cpu"), "cuda": env("cuda")}, "cases": cases}


def new():
    svd = fail("no ONNX lowering for torch.linalg.svd")
    return snapshot("2026-11-29T10:30:00Z", "1.3.0", [
        case("color.rgb_to_gray", "rgb_to_gray", "beyondlib.color", {
            "cpu": paths(), "cuda": paths(compile=fail("triton: no kernel for uint8", "run", "beyondlib/color.py:3"))},
            call=call("beyondlib.color.rgb_to_gray")),
        case("color.hsv_to_rgb", "hsv_to_rgb", "beyondlib.color", {
            "cpu": paths(onnx=fail("no ONNX lowering for aten::atan2")),
            "cuda": paths(onnx=fail("no ONNX lowering for aten::atan2"))},
            call=call("beyondlib.color.hsv_to_rgb")),
        case("geometry.warp_affine", "warp_affine", "beyondlib.geometry", {"cpu": paths(onnx=svd),
                                                                            "cuda": paths(onnx=svd)},
             call=call("beyondlib.geometry.warp_affine")),
        case("geometry.warp_affine[fill]", "warp_affine", "beyondlib.geometry", {
            "cpu": paths(onnx=fail("max abs diff 0.5 vs eager", "compare", status="mismatch")),
            "cuda": paths(onnx=fail("max abs diff 0.25 vs eager", "compare", status="mismatch"))},
            variant="fill", call=call("beyondlib.geometry.warp_affine") + "  # </script><script>alert(2)</script>"),
        case("geometry.solve", "solve", "beyondlib.geometry", {
            "cpu": paths(onnx=fail("no ONNX lowering for torch.linalg.solve"), export=fail(INJECTED, "capture"),
                         compile=fail('=HYPERLINK("http://evil.example")', "capture")),
            "cuda": paths(onnx=fail("no ONNX lowering for torch.linalg.solve"), export=fail(INJECTED, "capture"))}),
        case("geometry.Affine[random]", "Affine", "beyondlib.geometry", {
            "cpu": paths(onnx={"status": "ok-unverified", "detail": "random operator", "stage": "", "where": ""}),
            "cuda": paths()}, variant="random"),
        case("filters.blur<b>", "blur", "beyondlib.filters", {"cpu": paths(), "cuda": paths()}),
    ])


def old():
    data = new()
    data["generated_at"] = "2026-10-01T09:00:00Z"
    data["library"] = {"name": "beyondlib", "version": "1.2.0", "revision": "abc120"}
    cases = [c for c in data["cases"] if c["name"] != "filters.blur<b>"]  # blur is new
    for c in cases:
        if c["name"] == "color.rgb_to_gray":  # compile on CUDA worked before: a regression now
            c["results"]["cuda"]["compile"] = dict(OK) | {"graph_breaks": 0}
        if c["name"] == "geometry.warp_affine":  # torch.export failed before: fixed now
            for device in ("cpu", "cuda"):
                c["results"][device]["export"] = fail("data-dependent output shape", "capture")
    data["cases"] = cases
    return data


if __name__ == "__main__":
    dump_snapshot(new(), HERE / "_data" / "new.json")
    dump_snapshot(old(), HERE / "_data" / "old.json")
