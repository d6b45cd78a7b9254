"""The one validator: every reader (the directive, ``:compare:``, ``diff``, ``merge``) goes through it.

It interprets the subset of JSON Schema the shipped schema
(``snapshot-2.schema.json``) uses, so that an error names the file, the case
(index and name), the field, what was expected and what was found, in words,
instead of a validator's traceback. Rules a schema cannot say (unique names,
results only for listed devices) follow the schema check.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from .errors import FIX_HINT, SnapshotError, field_error, kind_of, show_value
from .vocabulary import EXPORT, ONNX, SUPPORTED

SCHEMA_PATH = Path(__file__).parent / "snapshot-2.schema.json"


# what only torch.compile records: its default compile's breaks and graphs, and whether fullgraph=True compiled it
COMPILE_ONLY_FIELDS = ("graph_breaks", "fullgraph", "graphs", "breaks_removed_by")


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    with SCHEMA_PATH.open(encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),), "boolean": (bool,), "integer": (int,), "number": (int, float),
    "string": (str,), "array": (list,), "object": (dict,)}

# what a person is told a pattern of the schema wants
PATTERN_WORDS = {"^[0-9a-f]{64}$": "a SHA-256 digest (64 lowercase hexadecimal digits)"}

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
        pattern = re.compile(node["pattern"]) if "pattern" in node else None
        minimum = node.get("minimum")
        items = self.check(node["items"]) if "items" in node else None
        obj = self._compile_object(node)

        def check(value: Any) -> Problem | None:
            if const is not _UNSET and value != const:
                return [], show_value(const), show_value(value)
            if enum is not None and value not in enum:
                choices = ", ".join(repr(c) if c else "'' (empty)" for c in enum)
                return [], f"one of {choices}", show_value(value)
            if wanted is not None and (not isinstance(value, py_types)
                                       or (value is True or value is False) and not bool_ok):
                return [], " or ".join(wanted), "null" if value is None else f"{kind_of(value)} {show_value(value)}"
            if min_length and isinstance(value, str) and len(value) < min_length:
                return [], "a non-empty string", show_value(value)
            if pattern is not None and isinstance(value, str) and not pattern.search(value):
                return [], PATTERN_WORDS.get(pattern.pattern, f"a string matching {pattern.pattern}"), show_value(value)
            if minimum is not None and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and value < minimum:
                return [], f"a number >= {minimum}", show_value(value)
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


def validate(data: Any, source: str = "<snapshot>") -> None:
    """Raise SnapshotError describing the first problem in a format-1 snapshot."""
    if not isinstance(data, dict):
        raise SnapshotError(f"{source}: expected a JSON object at the top level, found {kind_of(data)}. {FIX_HINT}")
    cases = data.get("cases") if isinstance(data.get("cases"), list) else None
    found = _validator().check(load_schema())(data)  # (field path, expected, found) of the first problem
    if found is not None:
        raise field_error(source, *found, cases=cases)
    envs = data["environments"]
    seen: dict[str, int] = {}
    for i, case in enumerate(data["cases"]):
        name = case["name"]
        if name in seen:
            raise field_error(source, ["cases", f"[{i}]", "name"],
                         f"a name no other case uses (case #{seen[name]} is also {name!r})",
                         f"duplicate name {name!r}", cases)
        seen[name] = i
        aliases = case.get("aliases", [])
        if case["ref"] in aliases or len(set(aliases)) < len(aliases):
            twice = next(a for a in aliases if a == case["ref"] or aliases.count(a) > 1)
            raise field_error(source, ["cases", f"[{i}]", "aliases"],
                              "the object's other names, each once and without the case's own ref",
                              f"{twice!r} {'(the ref itself)' if twice == case['ref'] else 'twice'}", cases)
        for device, stamp in case.get("measured", {}).items():
            if "code" in stamp and stamp["code"] not in data.get("code", {}).get("sets", {}):
                raise field_error(source, ["cases", f"[{i}]", "measured", device, "code"],
                                  "the key of an entry of the top-level code table",
                                  f"{stamp['code']!r}, which the table does not hold", cases)
        for device, paths in case["results"].items():
            if device not in envs:
                raise field_error(source, ["cases", f"[{i}]", "results", device],
                             f"a device listed under environments ({', '.join(envs)})",
                             f"results for unknown device {device!r}", cases)
            for path, record in paths.items():
                if "speed" in record and record["status"] not in SUPPORTED:
                    raise field_error(source, ["cases", f"[{i}]", "results", device, path, "speed"],
                                      "speed only on a supported result (ok, ok-breaks, ok-unverified)",
                                      f"a speed field on a {record['status']} result", cases)
            for path in (ONNX, EXPORT):
                for name in COMPILE_ONLY_FIELDS:
                    if name in paths[path]:
                        raise field_error(source, ["cases", f"[{i}]", "results", device, path, name],
                                          f"{name} only on the compile path", f"a {name} field", cases)
    if data["complete"] is False and "missing" not in data:
        raise field_error(source, ["missing"], "the list of missing cases when complete is false",
                     "nothing", None)
    strays = sorted(set(data.get("selection", {}).get("left_out", ())) - set(data.get("missing", ())))
    if strays:
        raise field_error(source, ["selection", "left_out"], "names listed under missing (cases without results)",
                          f"{', '.join(map(repr, strays[:5]))}, not missing", None)

