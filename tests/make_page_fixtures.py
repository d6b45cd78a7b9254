"""Writes the format-1 snapshots of the page tests' scenario projects (tests/roots/test-*/_data).

Run from tests/roots: ../../.venv/bin/python ../make_page_fixtures.py
"""
import os
import sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from sphinx_kexport.snapshot import dumps, validate

def r(status, detail="", stage="", where="", **extra):
    d = {"status": status, "detail": detail, "stage": stage, "where": where}
    d.update(extra)
    return d

def ok(**extra): return r("ok", **extra)
def na(detail="not a tensor graph"): return r("n/a", detail, "skip")

def case(name, package, section, operator, variant, ref, results, note=""):
    return {"name": name, "package": package, "section": section, "operator": operator, "variant": variant,
            "ref": ref, "note": note, "results": results}

def env(**over):
    e = {"torch": "2.13.0+cpu", "onnx": "1.23.2", "onnxruntime": "1.32.0", "onnxscript": "0.7.2",
         "python": "3.11.7", "platform": "Linux-6.1-x86_64", "device_name": "Intel Xeon Platinum",
         "opset": 18, "probed_at": "2026-11-20T10:00:00Z", "onnxruntime_provider": "CPUExecutionProvider"}
    e.update(over)
    return e

LOWERING = "no ONNX lowering for aten::atan2"
basic_cases = [
    case("color.rgb_to_gray", "mylib.color", "", "rgb_to_gray", "", "mylib.color.rgb_to_gray",
         {"cpu": {"onnx": ok(), "export": ok(), "compile": ok(graph_breaks=0)}}),
    case("color.hsv_to_rgb", "mylib.color", "", "hsv_to_rgb", "", "mylib.color.hsv_to_rgb",
         {"cpu": {"onnx": r("fail", LOWERING, "translate", "mylib/color/hsv.py:40"), "export": ok(),
                  "compile": r("ok-breaks", "", "", "", graph_breaks=2)}}),
    case("geometry.transform.warp_affine[fill]", "mylib.geometry", "transform", "warp_affine", "fill",
         "mylib.geometry.warp_affine",
         {"cpu": {"onnx": r("mismatch", "max abs diff 0.5 vs eager", "compare", "", max_abs_diff=0.5),
                  "export": ok(), "compile": ok()}}),
    case("geometry.transform.warp_affine", "mylib.geometry", "transform", "warp_affine", "",
         "mylib.geometry.warp_affine",
         {"cpu": {"onnx": ok(), "export": ok(), "compile": ok()}}),
    case("geometry.camera.project_points", "mylib.geometry", "camera", "project_points", "",
         "mylib.geometry.project_points",
         {"cpu": {"onnx": r("fail", "data-dependent output shape", "capture", "mylib/geometry/camera.py:7"),
                  "export": r("fail", "data-dependent output shape", "capture", "mylib/geometry/camera.py:7"),
                  "compile": ok()}}),
    case("geometry.Affine[random]", "mylib.geometry", "", "Affine", "random", "mylib.geometry.Affine",
         {"cpu": {"onnx": r("ok-unverified", "random operator: only shapes are checked"), "export": ok(),
                  "compile": r("ok-unverified", "random operator: only shapes are checked")}}),
    case("io.load_image", "mylib.io", "", "load_image", "", "mylib.io.load_image",
         {"cpu": {"onnx": na("file I/O"), "export": na("file I/O"), "compile": na("file I/O")}}),
    case("utils.draw_line", "mylib.utils", "", "draw_line", "", "",
         {"cpu": {"onnx": na(), "export": na(), "compile": r("fail", "graph break in a loop", "capture",
                                                             "mylib/utils/draw.py:12")}}),
]
basic = {"schema": 1, "generated_at": "2026-11-20T10:30:00Z", "complete": True,
         "library": {"name": "mylib", "version": "1.2.3", "revision": "abc1234"},
         "environments": {"cpu": env()}, "cases": basic_cases}

cuda_env = env(torch="2.13.0+cu130", device_name="NVIDIA H200", cuda="13.0", driver="580.1",
               onnxruntime_provider="CUDAExecutionProvider", platform="Linux-6.1-x86_64")
two = {"schema": 1, "generated_at": "2026-11-21T08:00:00Z", "complete": True,
       "library": {"name": "mylib", "version": "1.2.3", "revision": "abc1234"},
       "environments": {"cpu": env(), "cuda": cuda_env},
       "cases": [
    case("color.rgb_to_gray", "mylib.color", "", "rgb_to_gray", "", "mylib.color.rgb_to_gray",
         {"cpu": {"onnx": ok(), "export": ok(), "compile": ok()},
          "cuda": {"onnx": ok(), "export": ok(), "compile": r("fail", "triton: no kernel for uint8", "run",
                                                               "mylib/color/gray.py:3")}}),
    case("color.hsv_to_rgb", "mylib.color", "", "hsv_to_rgb", "", "mylib.color.hsv_to_rgb",
         {"cpu": {"onnx": r("fail", LOWERING, "translate"), "export": ok(), "compile": ok()},
          "cuda": {"onnx": r("fail", LOWERING, "translate"), "export": ok(), "compile": ok()}}),
    case("geometry.warp_affine", "mylib.geometry", "", "warp_affine", "", "mylib.geometry.warp_affine",
         {"cpu": {"onnx": ok(), "export": ok(), "compile": r("ok-breaks", graph_breaks=1)},
          "cuda": {"onnx": r("mismatch", "max abs diff 1e-2 vs eager", "compare"), "export": ok(),
                   "compile": ok()}}),
    case("geometry.cpu_only", "mylib.geometry", "", "cpu_only", "", "",
         {"cpu": {"onnx": ok(), "export": ok(), "compile": ok()}}),
]}

INJ = [
    "<script>alert('x')</script>",
    '"><img src=x onerror=alert(1)>',
    "`x`_ and :ref:`y` **bold**",
    "\n.. raw:: html\n\n   <b>raw</b>\n",
    "{{ 7*7 }} {% if true %}jinja{% endif %}",
    r"\input{/etc/passwd} } % # & _ ^ ~ \ $x$",
]
def inj(i, prefix=""):
    return prefix + INJ[i % len(INJ)] + " | " + INJ[(i + 3) % len(INJ)]

inj_cases = []
for i in range(6):
    inj_cases.append({
        "name": inj(i, f"case{i} "), "package": inj(i + 1, "pkg "), "section": inj(i + 2, "sec "),
        "operator": inj(i + 3, "op "), "variant": inj(i + 4, "var "), "ref": inj(i + 5, "ref "),
        "note": inj(i, "note "), "call": inj(i + 1, "call "),
        "results": {"cpu": {
            "onnx": r("fail", inj(i, "detail "), "translate", inj(i + 2, "where ")),
            "export": r("mismatch", inj(i + 1, "detail "), "compare", inj(i + 3, "where ")),
            "compile": r("ok-breaks", inj(i + 2, "detail "), "", "", graph_breaks=3)}},
    })
injection = {"schema": 1, "generated_at": inj(0, "date "), "complete": False,
             "missing": [inj(i, "missing ") for i in range(3)],
             "library": {"name": inj(1, "lib "), "version": inj(2, "ver "), "revision": inj(3, "rev ")},
             "environments": {"cpu": env(torch=inj(4, "torch "), onnx=inj(5, "onnx "), onnxruntime=inj(0, "ort "),
                                         onnxscript=inj(1, "oscript "), python=inj(2, "py "),
                                         platform=inj(3, "plat "), device_name=inj(4, "dev "),
                                         onnxruntime_provider=inj(5, "prov "), probed_at=inj(0, "at "),
                                         cuda=inj(1, "cuda "), driver=inj(2, "drv "))},
             "cases": inj_cases}

def xref_case(name, operator, ref, package="mylib", variant=""):
    return case(name, package, "", operator, variant, ref, {"cpu": {"onnx": ok(), "export": ok(), "compile": ok()}})

xref = {"schema": 1, "generated_at": "2026-11-20", "complete": True,
        "library": {"name": "mylib", "version": "1.0", "revision": "abc"},
        "environments": {"cpu": env(device_name="", platform="Linux", probed_at="2026-11-20")},
        "cases": [xref_case("own", "own_fn", "mylib.own_fn"),
                  xref_case("guessed", "OwnClass", ""),
                  xref_case("external", "blur", "extlib.color.blur", package="extlib.color"),
                  xref_case("external method", "Sharpen.forward", "extlib.color.Sharpen.forward",
                            package="extlib.color"),
                  xref_case("missing", "not_documented", "mylib.not_documented"),
                  xref_case("missing too", "gone", "mylib.gone", variant="v")]}

for data, path in ((xref, "test-xref/_data/export_support.json"), (basic, "test-basic/_data/export_support.json"), (two, "test-twodevice/_data/export_support.json"),
                   (injection, "test-injection/_data/export_support.json")):
    validate(data, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(dumps(data))
print("ok")
