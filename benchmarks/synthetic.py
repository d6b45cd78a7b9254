"""Synthetic format-1 snapshots of any size, for benchmarks and browser tests.

Deterministic for a given seed. Realistic in shape: Kornia's 15 packages,
weighted like Kornia's survey, with its ~50 sections (geometry alone has
22); operators with and without variants, notes and
cross-reference targets; about 20 % of configurations fail somewhere, with
Kornia-like reasons, failing stages and source locations; on two devices a
few rows disagree between CPU and CUDA. With ``varied_reasons`` each failure's reason also names
the step it failed at (two of the operator words, "..., at the warp blur step"), and its cause record
names that step as the operator the cause is about, so that nearly every failing cell has a reason (and a
cause) of its own and the page's reason index an entry per failure: the page's worst case for repeated words.

    python benchmarks/synthetic.py 1200 out.json [--devices cpu cuda] [--seed 0] [--varied-reasons]
"""

from __future__ import annotations

import argparse
import copy
import random
from typing import Any

from sphinx_kexport.snapshot import dump_snapshot
from sphinx_kexport.snapshot.causes import Cause
from sphinx_kexport.snapshot.legacy_causes import fill as with_causes, legacy_class

# (package, share of the rows in %, its sections): the shape of Kornia's page.
LAYOUT = [
    ("color", 6, [""]), ("enhance", 5, [""]), ("filters", 6, [""]), ("morphology", 2, [""]),
    ("geometry", 25, ["", "transform", "conversions", "camera", "linalg", "boxes", "bbox", "epipolar",
                      "homography", "subpix", "depth", "keypoints", "liegroup", "line", "plane", "pointcloud",
                      "pose", "quaternion", "ransac", "ray", "solvers", "vector"]),
    ("feature", 10, ["", "detectors", "descriptors", "laf", "matching", "models", "orientation_affine",
                     "responses"]),
    ("augmentation", 20, ["", "3d", "container", "mix", "auto"]),
    ("losses", 4, [""]), ("metrics", 3, [""]), ("contrib", 4, ["", "patches", "wrappers"]),
    ("models", 6, ["", "base", "processors"]), ("image", 2, [""]), ("sensors", 2, ["camera"]),
    ("utils", 3, [""]), ("tracking", 2, [""]),
]
WORDS = ["rgb", "hsv", "lab", "warp", "affine", "perspective", "gaussian", "blur", "sobel", "laplacian",
         "canny", "harris", "resize", "rotate", "crop", "flip", "normalize", "equalize", "sharpen", "erode",
         "dilate", "opening", "closing", "solve", "svd", "inverse", "project", "unproject", "match", "detect",
         "describe", "sample", "jitter", "mosaic", "mixup", "cutmix", "ssim", "psnr", "dice", "focal"]
VARIANTS = ["", "", "", "", "batch", "random", "p=0.5", "fp16", "same_on_batch", "train"]
REASONS = {
    "onnx": ["no ONNX lowering for torch.linalg.svd", "no ONNX lowering for aten::linalg_solve",
             "data-dependent output size (nonzero)", "onnxruntime: unsupported type tensor(bool) for Mul",
             "onnx.checker: graph input has no shape"],
    "export": ["data-dependent control flow: if on a tensor value", "unsupported Python builtin: print",
               "guard on a symbolic size failed", "torch.export cannot trace generator objects"],
    "compile": ["inductor: no lowering for aten.histc", "result differs from eager (max abs diff 3.1e-02)",
                "graph break: Tensor.item() call", "dynamo: unsupported call to numpy.random.rand"],
}
STAGES = {"onnx": ["translate", "check", "run", "capture"], "export": ["capture"],
          "compile": ["capture", "run", "compare"]}


def _result(rng: random.Random, path: str, fail_rate: float, package: str, name: str,
            varied: random.Random | None = None) -> dict[str, Any]:
    roll = rng.random()
    if roll < fail_rate:
        status = "mismatch" if path != "export" and rng.random() < 0.15 else "fail"
        detail = rng.choice(REASONS[path])
        cause = {}
        if varied is not None:  # the index groups by the cause record: its operator keeps the reasons apart
            step = f"{varied.choice(WORDS)} {varied.choice(WORDS)}"
            detail += f", at the {step} step"
            cause = {"cause": Cause(str(legacy_class(path, detail)), operator=step.replace(" ", "_")).record()}
        return {"status": status, "detail": detail,
                "stage": "compare" if status == "mismatch" else rng.choice(STAGES[path]),
                "where": f"kornia/{package}/{name.split('_')[0]}.py:{rng.randint(10, 900)}", **cause}
    if roll < fail_rate + 0.03:
        return {"status": "n/a", "detail": "not a tensor graph", "stage": "", "where": ""}
    if path == "compile" and rng.random() < 0.12:
        return {"status": "ok-breaks", "detail": "graph break: data-dependent branch", "stage": "",
                "where": "", "graph_breaks": rng.randint(1, 4)}
    if rng.random() < 0.05:
        return {"status": "ok-unverified", "detail": "random operator: shapes and finiteness checked", "stage": "",
                "where": ""}
    result = {"status": "ok", "detail": "", "stage": "", "where": ""}
    if path == "compile":
        result["graph_breaks"] = 0
    return result


def _environment(device: str) -> dict[str, Any]:
    return {"torch": "2.13.0", "onnx": "1.21.0", "onnxruntime": "1.23.2", "onnxscript": "0.5.7",
            "python": "3.12.3", "platform": "Linux-x86_64", "device_name": "synthetic " + device, "opset": 18,
            "probed_at": "2026-01-01T00:00:00Z"}


def make_snapshot(rows: int, devices: tuple[str, ...] = ("cpu",), seed: int = 0,
                  fail_rate: float = 0.07, disagree_rate: float = 0.03,
                  varied_reasons: bool = False) -> dict[str, Any]:
    """A valid format-1 snapshot with ``rows`` cases.

    ``fail_rate`` is per cell; with three paths about 20 % of rows fail
    somewhere at the default. ``disagree_rate``: the share of rows whose
    CUDA cell flips relative to CPU (two devices only). ``varied_reasons``: see the module's docstring
    (drawn from a generator of their own: the same seed gives the same rows and statuses either way).
    """
    rng = random.Random(seed)
    varied = random.Random(seed + 1) if varied_reasons else None
    cases = []
    names: set[str] = set()
    weights = [share for _, share, _ in LAYOUT]
    for i in range(rows):
        short, _, sections = rng.choices(LAYOUT, weights)[0]
        package = "kornia." + short
        section = rng.choice(sections)
        name_words = [rng.choice(WORDS) for _ in range(rng.randint(2, 3))]
        operator = "_".join(name_words) if i % 4 else "".join(w.capitalize() for w in name_words)
        variant = rng.choice(VARIANTS)
        name = f"{package}.{operator}" + (f"[{variant}]" if variant else "")
        if name in names:  # registry names are unique; a clash is told apart like Kornia's paths
            name += f"[{i}]"
        names.add(name)
        first = {path: _result(rng, path, fail_rate, package.split(".")[1], operator, varied)
                 for path in ("onnx", "export", "compile")}
        results = {devices[0]: first}
        for device in devices[1:]:
            paths = {path: dict(result) for path, result in first.items()}
            if rng.random() < disagree_rate:  # flip ONNX on this device
                if first["onnx"]["status"] in ("ok", "ok-breaks", "ok-unverified"):
                    paths["onnx"] = {"status": "fail", "detail": "CUDAExecutionProvider: no kernel for GridSample",
                                     "stage": "run", "where": ""}
                else:
                    paths["onnx"] = {"status": "ok", "detail": "", "stage": "", "where": ""}
            results[device] = paths
        cases.append({
            "name": name, "package": package, "section": section, "operator": operator, "variant": variant,
            "ref": f"{package}.{operator}" if i % 3 else "",
            "note": "inputs are a 1x3x32x32 batch" if i % 11 == 0 else "",
            "origin": "docstring" if i % 2 else "hand-written",
            "results": results,
        })
    # each red record's cause, as a probe names it beside its words (these words are the probe's)
    return with_causes({"schema": 2, "generated_at": "2026-01-01T00:00:00Z", "complete": True,
                        "library": {"name": "kornia", "version": "0.9.0", "revision": "synthetic"},
                        "environments": {d: _environment(d) for d in devices}, "cases": cases})


def torch_versions(snapshot: dict[str, Any], count: int, seed: int = 0, change_rate: float = 0.04,
                   dropped_rate: float = 0.01) -> list[dict[str, Any]]:
    """``count`` snapshots of one library, one per torch version (2.9.0, 2.11.0, ...), ``snapshot`` the
    newest; each older one has ``change_rate`` of its cells flipped between working and failing against
    the next, and lacks ``dropped_rate`` of the cases (new in a later version)."""
    rng = random.Random(seed)
    versions = [copy.deepcopy(snapshot)]
    for _ in range(count - 1):
        older = copy.deepcopy(versions[0])
        older["cases"] = [c for c in older["cases"] if rng.random() >= dropped_rate]
        for case in older["cases"]:
            for paths in case["results"].values():
                for path, result in paths.items():
                    if rng.random() >= change_rate or result["status"] == "n/a":
                        continue
                    if result["status"] in ("ok", "ok-breaks", "ok-unverified"):
                        paths[path] = {"status": "fail", "detail": "no ONNX lowering for aten::unfold_backward",
                                       "stage": "translate", "where": ""}
                    else:
                        paths[path] = {"status": "ok", "detail": "", "stage": "", "where": ""}
        versions.insert(0, older)
    for i, version in enumerate(versions):
        version["generated_at"] = f"2026-{i + 1:02d}-01T00:00:00Z"
        for device, environment in version["environments"].items():
            environment["torch"] = f"2.{9 + 2 * i}.0+{device}"
    return [with_causes(version) for version in versions]  # a cell flipped to failing: its cause


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("out")
    parser.add_argument("--devices", nargs="+", default=["cpu"], choices=["cpu", "cuda"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--varied-reasons", action="store_true", help="a reason of its own per failure")
    args = parser.parse_args(argv)
    dump_snapshot(make_snapshot(args.rows, tuple(args.devices), args.seed, varied_reasons=args.varied_reasons),
                  args.out)


if __name__ == "__main__":
    main()
