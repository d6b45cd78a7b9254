"""Writes _data/export_support.json, the snapshot the browser tests drive.

Hand-made so the tests can name what each search and filter must show:
four packages (geometry with three sections), CPU and CUDA, rows that
disagree between the devices, every status, merged reasons, notes and
variants, recorded calls for "Reproduce", and snapshot strings that look
like markup. Also writes _data/older.json, the snapshot the page compares
with (one cell regressed, one fixed, one changed otherwise).

    python tests/roots/test-browser/make_snapshot.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from sphinx_kexport.snapshot import dump_snapshot  # noqa: E402

OK = {"status": "ok", "detail": "", "stage": "", "where": ""}
NA = {"status": "n/a", "detail": "not a tensor graph", "stage": "", "where": ""}


def fail(detail, stage="capture", where=""):
    return {"status": "fail", "detail": detail, "stage": stage, "where": where}


def mismatch(detail, where=""):
    return {"status": "mismatch", "detail": detail, "stage": "compare", "where": where}


def breaks(n):
    return {"status": "ok-breaks", "detail": "graph break: Tensor.item() call", "stage": "", "where": "",
            "graph_breaks": n}


RANDOM = {"status": "ok-unverified", "detail": "random operator: shapes and finiteness checked", "stage": "",
          "where": ""}
SVD = "no ONNX lowering for torch.linalg.svd"


def case(package, section, operator, variant="", *, onnx=OK, export=OK, compile=OK, cuda=None, note="",
         ref="", call=""):
    """``cuda``: overrides for the CUDA results, else CUDA = CPU."""
    cpu = {"onnx": dict(onnx), "export": dict(export), "compile": dict(compile)}
    gpu = {k: dict(v) for k, v in cpu.items()}
    gpu.update(cuda or {})
    for paths in (cpu, gpu):
        paths["compile"].setdefault("graph_breaks", 0)
    name = f"{package}.{operator}" + (f"[{variant}]" if variant else "")
    record = {"name": name, "package": package, "section": section, "operator": operator, "variant": variant,
              "ref": ref, "note": note, "results": {"cpu": cpu, "cuda": gpu}}
    if call:
        record["call"] = call
    return record


CASES = [
    # mylib.color: one table
    case("mylib.color", "", "rgb_to_gray", ref="mylib.color.rgb_to_gray"),
    case("mylib.color", "", "hsv_to_rgb", onnx=fail("no ONNX lowering for aten::atan2", "translate",
                                                     "mylib/color/hsv.py:31"),
         call="import mylib\nfn = mylib.color.hsv_to_rgb\ninputs = (torch.rand(1, 3, 8, 8),)"),
    case("mylib.color", "", "rgb_to_lab", "batch", note="a batch of 4 images"),
    case("mylib.color", "", "gray_to_rgb", compile=breaks(2), cuda={"compile": dict(OK)}),
    case("mylib.color", "", "lab_to_rgb",
         cuda={"onnx": fail("CUDAExecutionProvider: no kernel for Atan", "run")}),
    case("mylib.color", "", "sepia", export=NA),
    case("mylib.color", "", "rgb_to_yuv", note='<img src=x onerror="window.__kx_xss=1"> & "quotes"',
         compile=fail("<script>window.__kx_xss=2</script> unsupported", "run"),
         call='fn = lambda x: x  # </pre></details><img src=x onerror="window.__kx_xss=3">\ninputs = ()'),
    # mylib.geometry: three sections
    case("mylib.geometry", "transform", "warp_affine", ref="mylib.geometry.warp_affine"),
    case("mylib.geometry", "transform", "warp_perspective", onnx=fail(SVD, "translate", "mylib/geometry/warp.py:88"),
         export=fail(SVD, "capture", "mylib/geometry/warp.py:88")),
    case("mylib.geometry", "transform", "rotate"),
    case("mylib.geometry", "transform", "resize", "antialias"),
    case("mylib.geometry", "transform", "crop_by_indices",
         export=fail("data-dependent control flow: if on a tensor value", "capture", "mylib/geometry/crop.py:42")),
    case("mylib.geometry", "camera", "project_points"),
    case("mylib.geometry", "camera", "unproject_points",
         cuda={"compile": mismatch("result differs from eager (max abs diff 3.1e-02)")}),
    case("mylib.geometry", "camera", "distort_points", onnx=RANDOM),
    case("mylib.geometry", "linalg", "solve_pnp", onnx=fail(SVD, "translate"), export=fail(SVD),
         compile=fail("inductor: no lowering for aten.linalg_svd", "run")),
    case("mylib.geometry", "linalg", "inverse_transformation"),
    # mylib.filters: one table
    case("mylib.filters", "", "gaussian_blur2d"),
    case("mylib.filters", "", "box_blur"),
    case("mylib.filters", "", "median_blur", compile=fail("inductor: no lowering for aten.median", "run")),
    case("mylib.filters", "", "canny", compile=breaks(3), cuda={"compile": dict(OK)}),
    case("mylib.filters", "", "sobel"),
    case("mylib.filters", "", "laplacian", "p=0.5"),
    # mylib.augmentation: one table
    case("mylib.augmentation", "", "RandomAffine", "params"),
    case("mylib.augmentation", "", "RandomAffine", "random", onnx=RANDOM, compile=RANDOM),
    case("mylib.augmentation", "", "ColorJitter", compile=mismatch("result differs from eager (max abs diff 0.2)")),
    case("mylib.augmentation", "", "RandomCrop", export=fail("guard on a symbolic size failed")),
    case("mylib.augmentation", "", "RandomErasing"),
    case("mylib.augmentation", "", "Mixup", onnx=fail("data-dependent output size (nonzero)", "translate")),
]


def older(current: dict) -> dict:
    """The snapshot before: warp_perspective's ONNX passed (now regressed), sobel's
    torch.compile failed (now fixed), canny had no graph breaks (changed otherwise)."""
    import copy

    data = copy.deepcopy(current)
    data["generated_at"] = "2025-12-01T00:00:00Z"
    for record in data["cases"]:
        for device, paths in record["results"].items():
            if record["operator"] == "warp_perspective":
                paths["onnx"] = dict(OK)
            if record["operator"] == "sobel" and device == "cpu":
                paths["compile"] = dict(fail("inductor: no lowering for aten.sobel", "run"), graph_breaks=0)
            if record["operator"] == "canny" and device == "cpu":
                paths["compile"] = dict(OK, graph_breaks=0)
    return data


def snapshot() -> dict:
    env = {"torch": "2.13.0", "onnx": "1.21.0", "onnxruntime": "1.23.2", "onnxscript": "0.5.7",
           "python": "3.12.3", "platform": "Linux-x86_64", "device_name": "", "opset": 18,
           "probed_at": "2026-01-01T00:00:00Z"}
    return {"schema": 1, "generated_at": "2026-01-01T00:00:00Z", "complete": True,
            "library": {"name": "mylib", "version": "1.0", "revision": "abc1234"},
            "environments": {"cpu": dict(env, device_name="test CPU"),
                             "cuda": dict(env, device_name="test GPU")},
            "cases": CASES}


if __name__ == "__main__":
    dump_snapshot(snapshot(), HERE / "_data" / "export_support.json")
    dump_snapshot(older(snapshot()), HERE / "_data" / "older.json")
