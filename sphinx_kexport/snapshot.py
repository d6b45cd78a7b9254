"""The snapshot: load, validate, convert and write the probe's JSON.

This module is the one place that knows the on-disk format. The Sphinx side
(rendering) and the probe (writing) both go through it, so the format is
agreed once. It never imports torch.

Two inputs are accepted:

* **format 1** (native), described by ``schema/snapshot-1.schema.json``;
* **Kornia's flat format**, the snapshot Kornia commits today, read unchanged
  and converted to a one-device (cpu) format-1 snapshot.

Validation is done by a small interpreter of the JSON-Schema subset the
shipped schema uses, so that an error names the file, the case (index and
name), the field, what was expected and what was found, in words, instead of
a validator's traceback.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

SCHEMA_VERSION = 1
PATHS = ("onnx", "export", "compile")
PATH_LABELS = {"onnx": "ONNX", "export": "torch.export", "compile": "torch.compile"}
DEVICES = ("cpu", "cuda")
DEVICE_LABELS = {"cpu": "CPU", "cuda": "CUDA"}
STATUSES = ("ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "n/a")
SUPPORTED = frozenset({"ok", "ok-breaks", "ok-unverified"})
FAILING = frozenset({"mismatch", "fail"})
STAGES = ("", "eager", "capture", "translate", "check", "load", "run", "compare", "process", "skip")

KORNIA_HEADER = ("generated_at", "revision", "kornia", "torch", "onnx", "onnxruntime", "onnxscript",
                 "python", "opset", "device")
KORNIA_CASE_FIELDS = ("name", "package", "section", "operator", "variant", "ref", "note", "onnx",
                      "onnx_detail", "export", "export_detail", "compile", "graph_breaks",
                      "compile_detail", "where")

SCHEMA_PATH = Path(__file__).parent / "schema" / "snapshot-1.schema.json"
FIX_HINT = "Fix the file, or regenerate it with `python -m sphinx_kexport.probe`."


class SnapshotError(Exception):
    """A snapshot that cannot be used, explained for a person."""


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    with SCHEMA_PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


# --------------------------------------------------------------------------
# the data model the renderer uses


@dataclass(slots=True)
class Result:
    status: str
    detail: str = ""
    stage: str = ""
    where: str = ""
    graph_breaks: int = 0
    break_reasons: tuple[str, ...] = ()
    max_abs_diff: float | None = None
    provider: str = ""

    @property
    def supported(self) -> bool:
        return self.status in SUPPORTED

    @property
    def failing(self) -> bool:
        return self.status in FAILING


NOT_PROBED = Result("n/a", "not probed on this device")


@dataclass(slots=True)
class Case:
    index: int
    name: str
    package: str
    section: str
    operator: str
    variant: str
    ref: str
    note: str
    results: dict[str, dict[str, Result]]
    check: bool = True
    inputs: tuple[tuple[tuple[int, ...], str], ...] = ()
    call: str = ""

    def result(self, device: str, path: str) -> Result:
        return self.results.get(device, {}).get(path, NOT_PROBED)


@dataclass(slots=True)
class Snapshot:
    source: str
    generated_at: str
    complete: bool
    library: dict[str, str]
    environments: dict[str, dict[str, Any]]
    cases: list[Case]
    missing: list[str] = field(default_factory=list)
    fmt: str = "sphinx-kexport/1"

    @property
    def devices(self) -> list[str]:
        """Devices in canonical order (cpu before cuda)."""
        return [d for d in DEVICES if d in self.environments]


# --------------------------------------------------------------------------
# validation


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_PY_TYPES = {"null": (type(None),), "boolean": (bool,), "integer": (int,), "number": (int, float),
             "string": (str,), "array": (list,), "object": (dict,)}

# A problem: (field path below the checked value, expected, found).
Problem = tuple[list[str], str, str]
Check = Callable[[Any], "Problem | None"]
_UNSET = object()


class _Validator:
    """Interprets the subset of JSON Schema the shipped schema uses.

    Each schema node is compiled once into a closure, and a field path is
    built only on the way back from a problem: a snapshot of thousands of
    results is checked in a few milliseconds instead of re-reading the
    schema, and allocating paths, for every value.
    """

    def __init__(self, schema: dict[str, Any]):
        self.root = schema
        self.compiled: dict[int, Check] = {}

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target = self.root
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
        return node

    def check(self, node: dict[str, Any]) -> Check:
        """The compiled check of a schema node: value -> None, or (field path, expected, found)."""
        node = self._resolve(node)
        key = id(node)
        if key not in self.compiled:
            # a stub first, so that a schema that refers to itself compiles
            self.compiled[key] = lambda value: self.compiled[key](value)
            self.compiled[key] = self._compile(node)
        return self.compiled[key]

    def _compile(self, node: dict[str, Any]) -> Check:
        const = node.get("const", _UNSET)
        enum = node.get("enum")
        wanted = node.get("type")
        wanted = [wanted] if isinstance(wanted, str) else wanted
        # isinstance against the Python types; a bool is only a "boolean", never an integer
        py_types = tuple(t for w in wanted or () for t in _PY_TYPES[w])
        bool_ok = "boolean" in (wanted or ())
        min_length = node.get("minLength", 0)
        minimum = node.get("minimum")
        items = self.check(node["items"]) if "items" in node else None
        obj = self._compile_object(node)

        def check(value: Any) -> Problem | None:
            if const is not _UNSET and value != const:
                return [], _show(const), _show(value)
            if enum is not None and value not in enum:
                choices = ", ".join(repr(c) if c else "'' (empty)" for c in enum)
                return [], f"one of {choices}", _show(value)
            if wanted is not None and (not isinstance(value, py_types)
                                       or (value is True or value is False) and not bool_ok):
                return [], " or ".join(wanted), "null" if value is None else f"{_kind(value)} {_show(value)}"
            if min_length and isinstance(value, str) and len(value) < min_length:
                return [], "a non-empty string", _show(value)
            if minimum is not None and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and value < minimum:
                return [], f"a number >= {minimum}", _show(value)
            if isinstance(value, dict):
                return obj(value)
            if items is not None and isinstance(value, list):
                for i, item in enumerate(value):
                    found = items(item)
                    if found is not None:
                        return [f"[{i}]"] + found[0], found[1], found[2]
            return None

        return check

    def _compile_object(self, node: dict[str, Any]) -> Callable[[dict], "Problem | None"]:
        required = tuple(node.get("required", ()))
        min_properties = node.get("minProperties", 0)
        props = {key: self.check(sub) for key, sub in node.get("properties", {}).items()}
        extra = node.get("additionalProperties", True)
        extra_check = self.check(extra) if isinstance(extra, dict) else None
        allowed = ", ".join(sorted(props))
        names = self.check(node["propertyNames"]) if "propertyNames" in node else None

        def check(value: dict) -> Problem | None:
            for key in required:
                if key not in value:
                    return [key], "a value (required field)", "nothing: the field is missing"
            if len(value) < min_properties:
                return [], f"at least {min_properties} entry", "an empty object"
            for key, item in value.items():
                if names is not None:
                    bad = names(key)
                    if bad is not None:
                        return [key], bad[1].replace("one of", "a key that is one of"), f"key {key!r}"
                sub = props.get(key)
                if sub is not None:
                    found = sub(item)
                elif extra is False:
                    return [key], f"only the fields {allowed}", f"unknown field {key!r}"
                elif extra_check is not None:
                    found = extra_check(item)
                else:
                    found = None
                if found is not None:
                    return [key] + found[0], found[1], found[2]
            return None

        return check


@lru_cache(maxsize=1)
def _validator() -> _Validator:
    return _Validator(load_schema())


def _field_name(parts: list[str]) -> str:
    text = ""
    for part in parts:
        text += part if part.startswith("[") or not text else "." + part
    return text or "(top level)"


def _error(source: str, parts: list[str], expected: str, found: str, cases: list | None) -> SnapshotError:
    case_text = ""
    if len(parts) >= 2 and parts[0] == "cases" and parts[1].startswith("["):
        index = int(parts[1][1:-1])
        name = None
        if cases is not None and index < len(cases) and isinstance(cases[index], dict):
            name = cases[index].get("name")
        case_text = f" case #{index}" + (f" ({name!r})" if isinstance(name, str) else "")
        parts = parts[2:]
    return SnapshotError(
        f"{source}:{case_text} field {_field_name(parts)}: expected {expected}, found {found}. {FIX_HINT}"
    )


def validate(data: Any, source: str = "<snapshot>") -> None:
    """Raise SnapshotError describing the first problem in a format-1 snapshot."""
    if not isinstance(data, dict):
        raise SnapshotError(f"{source}: expected a JSON object at the top level, found {_kind(data)}. {FIX_HINT}")
    cases = data.get("cases") if isinstance(data.get("cases"), list) else None
    found = _validator().check(load_schema())(data)  # (field path, expected, found) of the first problem
    if found is not None:
        raise _error(source, *found, cases=cases)
    envs = data["environments"]
    seen: dict[str, int] = {}
    for i, case in enumerate(data["cases"]):
        name = case["name"]
        if name in seen:
            raise _error(source, ["cases", f"[{i}]", "name"],
                         f"a name no other case uses (case #{seen[name]} is also {name!r})",
                         f"duplicate name {name!r}", cases)
        seen[name] = i
        for device, paths in case["results"].items():
            if device not in envs:
                raise _error(source, ["cases", f"[{i}]", "results", device],
                             f"a device listed under environments ({', '.join(envs)})",
                             f"results for unknown device {device!r}", cases)
            for path in ("onnx", "export"):
                if "graph_breaks" in paths[path]:
                    raise _error(source, ["cases", f"[{i}]", "results", device, path, "graph_breaks"],
                                 "graph_breaks only on the compile path", "a graph_breaks field", cases)
    if data["complete"] is False and "missing" not in data:
        raise _error(source, ["missing"], "the list of missing cases when complete is false",
                     "nothing", None)


# --------------------------------------------------------------------------
# Kornia's flat format


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
        raise _kornia_problem(source, " field cases", "array", _kind(data["cases"]))
    str_fields = set(KORNIA_CASE_FIELDS) - {"graph_breaks"}
    cases = []
    for i, raw in enumerate(data["cases"]):
        name = raw.get("name") if isinstance(raw, dict) else None
        label = f" case #{i}" + (f" ({name!r})" if isinstance(name, str) else "")
        if not isinstance(raw, dict):
            raise _kornia_problem(source, label, "object", _kind(raw))
        for key in KORNIA_CASE_FIELDS:
            if key not in raw:
                raise _kornia_problem(source, f"{label} field {key}", "a value (required field)", "nothing")
            value = raw[key]
            if key in str_fields and not isinstance(value, str):
                raise _kornia_problem(source, f"{label} field {key}", "string", f"{_kind(value)} {_show(value)}")
        if not isinstance(raw["graph_breaks"], int) or isinstance(raw["graph_breaks"], bool):
            raise _kornia_problem(source, f"{label} field graph_breaks", "integer", _show(raw["graph_breaks"]))
        for path in PATHS:
            if raw[path] not in STATUSES:
                raise _kornia_problem(source, f"{label} field {path}", "one of " + ", ".join(STATUSES),
                                      _show(raw[path]))
        where = raw["where"]
        paths = {}
        for path in PATHS:
            result: dict[str, Any] = {"status": raw[path], "detail": raw[f"{path}_detail"], "stage": "",
                                      "where": ""}
            paths[path] = result
        # Kornia records one location per case, taken from the ONNX failure,
        # else the torch.export failure (its merge's rule).
        for path in ("onnx", "export"):
            if where and paths[path]["status"] == "fail":
                paths[path]["where"] = where
                break
        paths["compile"]["graph_breaks"] = raw["graph_breaks"]
        cases.append({k: raw[k] for k in ("name", "package", "section", "operator", "variant", "ref", "note")}
                     | {"results": {"cpu": paths}})
    device = str(data["device"]) or "cpu"
    if device not in DEVICES:
        raise _kornia_problem(source, " header field device", "cpu or cuda", _show(device))
    env = {
        "torch": str(data["torch"]), "onnx": str(data["onnx"]), "onnxruntime": str(data["onnxruntime"]),
        "onnxscript": str(data["onnxscript"]), "python": str(data["python"]), "platform": "",
        "device_name": "", "opset": int(data["opset"]), "probed_at": str(data["generated_at"]),
    }
    if device != "cpu":
        for case in cases:
            case["results"] = {device: case["results"]["cpu"]}
    return {
        "schema": SCHEMA_VERSION,
        "generated_at": str(data["generated_at"]),
        "complete": True,
        "library": {"name": "kornia", "version": str(data["kornia"]), "revision": str(data["revision"])},
        "environments": {device: env},
        "cases": cases,
    }


# --------------------------------------------------------------------------
# reading and writing


def read_json(path: str | os.PathLike, source: str | None = None) -> Any:
    source = source or str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise SnapshotError(f"{source}: no such file. Check the path given to the directive "
                            "(relative to the document, or to the source directory when it starts with /).") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}. "
                            f"{FIX_HINT}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{source}: cannot be read ({exc}).") from None


def normalise(data: Any, source: str = "<snapshot>") -> tuple[dict[str, Any], str]:
    """Validate either format and return (format-1 dict, format name)."""
    if is_kornia_format(data):
        data = from_kornia(data, source)
        validate(data, source)
        return data, "kornia"
    if isinstance(data, dict) and "schema" in data and data["schema"] != SCHEMA_VERSION:
        raise SnapshotError(f"{source}: field schema: expected {SCHEMA_VERSION} (the format this "
                            f"sphinx-kexport reads), found {_show(data['schema'])}. Upgrade sphinx-kexport "
                            "or regenerate the snapshot.")
    validate(data, source)
    return data, "sphinx-kexport/1"


def _result(raw: dict[str, Any]) -> Result:
    return Result(
        status=raw["status"], detail=raw["detail"], stage=raw["stage"], where=raw["where"],
        graph_breaks=raw.get("graph_breaks", 0), break_reasons=tuple(raw.get("break_reasons", ())),
        max_abs_diff=raw.get("max_abs_diff"), provider=raw.get("provider", ""),
    )


def build(data: dict[str, Any], source: str, fmt: str) -> Snapshot:
    cases = []
    for i, raw in enumerate(data["cases"]):
        cases.append(Case(
            index=i, name=raw["name"], package=raw["package"], section=raw["section"],
            operator=raw["operator"] or raw["name"], variant=raw["variant"], ref=raw["ref"], note=raw["note"],
            results={dev: {p: _result(r) for p, r in paths.items()} for dev, paths in raw["results"].items()},
            check=raw.get("check", True),
            inputs=tuple((tuple(i["shape"]), i["dtype"]) for i in raw.get("inputs", ())),
            call=raw.get("call", ""),
        ))
    return Snapshot(source=source, generated_at=data["generated_at"], complete=data["complete"],
                    library=dict(data["library"]), environments=dict(data["environments"]), cases=cases,
                    missing=list(data.get("missing", [])), fmt=fmt)


def load_snapshot(path: str | os.PathLike, source: str | None = None) -> Snapshot:
    """Read, validate and convert a snapshot file; raise SnapshotError for people."""
    source = source or str(path)
    data, fmt = normalise(read_json(path, source), source)
    return build(data, source, fmt)


def dumps(data: dict[str, Any]) -> str:
    """The deterministic text of a snapshot: sorted keys, indent 2, trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: str | os.PathLike, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates the file 0600; give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def dump_snapshot(data: dict[str, Any], path: str | os.PathLike) -> None:
    """Validate and write a format-1 snapshot atomically and deterministically."""
    validate(data, str(path))
    write_atomic(path, dumps(data))
