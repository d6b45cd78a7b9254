"""Kornia's flat format: the snapshot Kornia commits today, read unchanged.

It is converted to a one-device format-1 dict, which then goes through the
same validator as a native snapshot.
"""

from __future__ import annotations

from typing import Any

from .errors import FIX_HINT, SnapshotError, kind_of, show_value
from .vocabulary import (COMPILE, CPU, DEVICES, EXPORT, FAIL, ONNX, ORIGIN_HAND, PATHS, SCHEMA_VERSION,
                         STATUSES)

KORNIA_HEADER = ("generated_at", "revision", "kornia", "torch", "onnx", "onnxruntime", "onnxscript",
                 "python", "opset", "device")
KORNIA_CASE_FIELDS = ("name", "package", "section", "operator", "variant", "ref", "note", ONNX,
                      "onnx_detail", EXPORT, "export_detail", COMPILE, "graph_breaks",
                      "compile_detail", "where")


def is_kornia_format(data: Any) -> bool:
    return isinstance(data, dict) and "schema" not in data and "kornia" in data and "cases" in data


def _kornia_problem(source: str, where: str, expected: str, found: str) -> SnapshotError:
    return SnapshotError(f"{source} (Kornia format):{where}: expected {expected}, found {found}. {FIX_HINT}")


def from_kornia(data: dict[str, Any], source: str = "<snapshot>") -> dict[str, Any]:
    """Convert Kornia's committed flat snapshot into format 1 (device cpu)."""
    for key in KORNIA_HEADER:
        if key not in data:
            raise _kornia_problem(source, f" header field {key}", "a value (required field)", "nothing")
    if not isinstance(data["cases"], list):
        raise _kornia_problem(source, " field cases", "array", kind_of(data["cases"]))
    str_fields = set(KORNIA_CASE_FIELDS) - {"graph_breaks"}
    cases = []
    for i, raw in enumerate(data["cases"]):
        name = raw.get("name") if isinstance(raw, dict) else None
        label = f" case #{i}" + (f" ({name!r})" if isinstance(name, str) else "")
        if not isinstance(raw, dict):
            raise _kornia_problem(source, label, "object", kind_of(raw))
        for key in KORNIA_CASE_FIELDS:
            if key not in raw:
                raise _kornia_problem(source, f"{label} field {key}", "a value (required field)", "nothing")
            value = raw[key]
            if key in str_fields and not isinstance(value, str):
                raise _kornia_problem(source, f"{label} field {key}", "string", f"{kind_of(value)} {show_value(value)}")
        if not isinstance(raw["graph_breaks"], int) or isinstance(raw["graph_breaks"], bool):
            raise _kornia_problem(source, f"{label} field graph_breaks", "integer", show_value(raw["graph_breaks"]))
        for path in PATHS:
            if raw[path] not in STATUSES:
                raise _kornia_problem(source, f"{label} field {path}", "one of " + ", ".join(STATUSES),
                                      show_value(raw[path]))
        where = raw["where"]
        paths: dict[str, dict[str, Any]] = {}
        for path in PATHS:
            result: dict[str, Any] = {"status": raw[path], "detail": raw[f"{path}_detail"], "stage": "",
                                      "where": ""}
            paths[path] = result
        # Kornia records one location per case, taken from the ONNX failure,
        # else the torch.export failure (its merge's rule).
        for located in (ONNX, EXPORT):
            if where and paths[located]["status"] == FAIL:
                paths[located]["where"] = where
                break
        paths[COMPILE]["graph_breaks"] = raw["graph_breaks"]
        cases.append({k: raw[k] for k in ("name", "package", "section", "operator", "variant", "ref", "note")}
                     | {"origin": ORIGIN_HAND, "results": {CPU: paths}})  # Kornia writes each probe by hand
    device = str(data["device"]) or CPU
    if device not in DEVICES:
        raise _kornia_problem(source, " header field device", "cpu or cuda", show_value(device))
    env = {
        "torch": str(data["torch"]), "onnx": str(data["onnx"]), "onnxruntime": str(data["onnxruntime"]),
        "onnxscript": str(data["onnxscript"]), "python": str(data["python"]), "platform": "",
        "device_name": "", "opset": int(data["opset"]), "probed_at": str(data["generated_at"]),
    }
    if device != CPU:
        for case in cases:
            case["results"] = {device: case["results"][CPU]}
    return {
        "schema": SCHEMA_VERSION,
        "generated_at": str(data["generated_at"]),
        "complete": True,
        "library": {"name": "kornia", "version": str(data["kornia"]), "revision": str(data["revision"])},
        "environments": {device: env},
        "cases": cases,
    }

