"""The snapshot's words are defined once (snapshot/vocabulary.py) and the shipped schema spells them the same."""

from __future__ import annotations

import copy
import json

import pytest

from sphinx_kexport.snapshot import SCHEMA_PATH, SnapshotError, build, normalise, validate
from sphinx_kexport.snapshot.vocabulary import DYNAMIC_STATUSES, NO_CASE_KINDS, NO_CASE_WORDS, ORIGINS, STAGES, STATUSES

from test_dynamic import snapshot


def schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_every_enum_of_the_schema_is_the_vocabulary():
    defs, props = schema()["$defs"], schema()["properties"]
    assert tuple(defs["status"]["enum"]) == STATUSES
    assert tuple(defs["stage"]["enum"]) == STAGES
    assert tuple(defs["dynamic_status"]["enum"]) == DYNAMIC_STATUSES
    assert tuple(defs["case"]["properties"]["origin"]["enum"]) == ORIGINS
    kinds = props["objects_without_cases"]["items"]["properties"]["kind"]["enum"]
    assert tuple(kinds) == NO_CASE_KINDS == tuple(NO_CASE_WORDS)


def test_objects_without_cases_are_read_into_records():
    data = snapshot()
    data["objects_without_cases"] = [{"ref": "lib.f", "package": "lib", "kind": "raised", "detail": "E: x"}]
    data, _ = normalise(data)
    read = build(data, "t.json")
    assert [(o.ref, o.package, o.kind, o.detail) for o in read.objects_without_cases] == [
        ("lib.f", "lib", "raised", "E: x")]
    assert build(normalise(snapshot())[0], "t.json").objects_without_cases == []  # optional


@pytest.mark.parametrize("entry, field, expected", [
    ({"ref": "lib.f", "package": "lib", "kind": "exploded", "detail": ""}, "kind", "one of 'no tensor call'"),
    ({"ref": "", "package": "lib", "kind": "raised", "detail": ""}, "ref", "a non-empty string"),
    ({"ref": "lib.f", "package": "lib", "kind": "raised"}, "detail", "required field"),
])
def test_a_bad_object_without_case_is_named_with_its_field(entry, field, expected):
    data = copy.deepcopy(snapshot())
    data["objects_without_cases"] = [entry]
    with pytest.raises(SnapshotError) as caught:
        validate(data, "support.json")
    message = str(caught.value)
    assert "support.json" in message and f"objects_without_cases[0].{field}" in message and expected in message
