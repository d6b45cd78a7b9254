"""The snapshot's words are defined once (snapshot/vocabulary.py) and the shipped schema spells them the same."""

from __future__ import annotations

import copy
import json
import pickle
import re

import pytest

from sphinx_kexport.snapshot import SCHEMA_PATH, SnapshotError, build, normalise, validate, vocabulary
from sphinx_kexport.snapshot.vocabulary import (DEVICES, DYNAMIC_ANSWERS, DYNAMIC_STATUS, DYNAMIC_STATUSES, FAILING,
                                                FAILING_KIND, NEITHER_KIND, NO_CASE_KINDS, NO_CASE_WORDS, ORIGINS,
                                                PATHS, STAGE, STAGES, STATUS, STATUSES, SUPPORTED, SUPPORTED_KIND,
                                                UNCOUNTED, page_codes)

from test_dynamic import snapshot


def schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_every_enum_of_the_schema_is_the_vocabulary():
    defs, props = schema()["$defs"], schema()["properties"]
    assert tuple(defs["status"]["enum"]) == STATUSES
    assert tuple(defs["stage"]["enum"]) == STAGES
    assert tuple(defs["dynamic_status"]["enum"]) == DYNAMIC_STATUSES
    assert tuple(defs["speed_figure"]["properties"]["verdict"]["enum"]) == vocabulary.SPEED_VERDICTS
    assert tuple(defs["speed_figure"]["properties"]["size"]["enum"]) == vocabulary.SPEED_SIZES
    assert tuple(defs["paths"]["required"]) == tuple(defs["paths"]["properties"]) == PATHS
    assert tuple(props["environments"]["propertyNames"]["enum"]) == DEVICES
    case = defs["case"]["properties"]
    assert tuple(case["results"]["propertyNames"]["enum"]) == DEVICES
    assert tuple(case["measured"]["propertyNames"]["enum"]) == DEVICES
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


def test_a_run_restricted_with_only_is_read_into_records():
    """``selection`` is optional: a snapshot without it (every one written before) reads as unrestricted."""
    data = copy.deepcopy(snapshot())
    names = [c["name"] for c in data["cases"]]
    data["complete"], data["missing"] = False, names[1:]
    assert build(normalise(copy.deepcopy(data))[0], "t.json").selection is None
    assert build(normalise(copy.deepcopy(data))[0], "t.json").lost == names[1:]
    data["selection"] = {"only": [names[0]], "left_out": names[1:]}
    read = build(normalise(data)[0], "t.json")
    assert read.selection.only == (names[0],) and read.selection.left_out == tuple(names[1:])
    assert read.lost == []  # every missing case was left out on purpose


def test_a_left_out_case_that_is_not_missing_is_named():
    data = copy.deepcopy(snapshot())
    name = data["cases"][0]["name"]
    data["selection"] = {"only": ["other"], "left_out": [name]}
    with pytest.raises(SnapshotError) as caught:
        validate(data, "support.json")
    assert "selection.left_out" in str(caught.value) and f"{name!r}, not missing" in str(caught.value)


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


# -- each record carries every fact its displays need

def _unique(values) -> bool:
    values = list(values)
    return len(values) == len(set(values))


@pytest.mark.parametrize("status", STATUSES)
def test_every_status_has_every_display_fact(status):
    assert status and status.short and status.label and status.meaning
    assert re.fullmatch(r"[a-z][a-z-]*", status.css), "a CSS class suffix (kx-status--<css>)"
    assert re.fullmatch(r"[a-z]", status.code), "one letter: tr[data-s] holds one per column, <kx-C> is its pill"
    assert status.kind in (SUPPORTED_KIND, FAILING_KIND, NEITHER_KIND) and isinstance(status.counted, bool)
    assert not (status.supported and status.failing)
    assert status is vocabulary.status(str(status)) and STATUS[str(status)] is status


def test_statuses_are_told_apart_by_every_fact():
    for fact in ("short", "label", "meaning", "css", "code"):
        assert _unique(getattr(s, fact) for s in STATUSES), fact
    assert _unique(STATUSES)


def test_the_supported_failing_and_uncounted_sets_follow_the_records():
    assert SUPPORTED == {s for s in STATUSES if s.kind == SUPPORTED_KIND}
    assert FAILING == {s for s in STATUSES if s.kind == FAILING_KIND}
    assert UNCOUNTED == {s for s in STATUSES if not s.counted}
    assert SUPPORTED and FAILING and not (SUPPORTED & FAILING) and not (UNCOUNTED & (SUPPORTED | FAILING))
    codes = page_codes()
    assert codes[SUPPORTED_KIND] == "".join(s.code for s in STATUSES if s.supported)
    assert codes[FAILING_KIND] == "".join(s.code for s in STATUSES if s.failing)


@pytest.mark.parametrize("dynamic", DYNAMIC_STATUSES)
def test_every_dynamic_status_has_every_display_fact(dynamic):
    assert dynamic and dynamic.meaning and isinstance(dynamic.answers, bool)
    assert re.fullmatch(r"[a-z-]", dynamic.code)
    if dynamic.answers:  # a mark on the page, a suffix in the progress lines
        assert dynamic.legend and dynamic.suffix and dynamic.code != "-"
    else:  # no mark
        assert dynamic.legend == dynamic.suffix == "" and dynamic.code == "-"
    assert dynamic is vocabulary.dynamic_status(str(dynamic)) and DYNAMIC_STATUS[str(dynamic)] is dynamic


def test_dynamic_marks_are_told_apart():
    answers = [d for d in DYNAMIC_STATUSES if d.answers]
    assert tuple(answers) == DYNAMIC_ANSWERS
    for fact in ("legend", "suffix", "code", "meaning"):
        assert _unique(getattr(d, fact) for d in answers), fact
    assert _unique(d.meaning for d in DYNAMIC_STATUSES) and _unique(DYNAMIC_STATUSES)


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_says_what_it_means(stage):
    assert stage.meaning and STAGE[str(stage)] is stage


def test_paths_and_devices_have_labels():
    assert all(p.label for p in PATHS) and _unique(p.label for p in PATHS)
    assert all(d.label for d in DEVICES) and _unique(d.label for d in DEVICES)


def test_an_unknown_word_is_named_with_the_words_there_are():
    with pytest.raises(ValueError, match="unknown status 'okay'; expected one of ok, "):
        vocabulary.status("okay")
    with pytest.raises(ValueError, match="unknown dynamic status 'dyn'; expected one of ok, static"):
        vocabulary.dynamic_status("dyn")


@pytest.mark.parametrize("record", [*STATUSES, *DYNAMIC_STATUSES, *STAGES, *PATHS, *DEVICES], ids=repr)
def test_a_record_is_its_plain_word(record):
    word = str(record)
    assert record == word and hash(record) == hash(word) and {word: 1}[record] == 1
    assert json.dumps(record) == json.dumps(word)
    again = pickle.loads(pickle.dumps(record))
    assert type(again) is str and again == word


def test_skipped_functions_are_optional_and_read_into_records():
    """A compile result may list the functions dynamo skips (issue 43); older snapshots have none and render the
    same; with no graph break the cell says what it is."""
    from sphinx_kexport.page.model.words import status_text
    from sphinx_kexport.snapshot.vocabulary import OK_BREAKS

    skipping = {"status": OK_BREAKS, "detail": "dynamo skips 1 function: h (torch.compiler.disable), …", "stage": "",
                "where": "", "skipped_functions": ["h (torch.compiler.disable)"]}
    data = snapshot(compile=skipping)
    validate(data, "t.json")
    result = build(normalise(data)[0], "t.json").cases[0].result("cpu", "compile")
    assert result.skipped_functions == ("h (torch.compiler.disable)",) and result.graph_breaks == 0
    assert status_text(result) == "yes, skips 1 function"
    data["cases"][0]["results"]["cpu"]["compile"]["graph_breaks"] = 2
    breaking = build(normalise(data)[0], "t.json")
    assert status_text(breaking.cases[0].result("cpu", "compile")) == "yes, 2 breaks"  # breaks say it first
    older = build(normalise(snapshot())[0], "t.json").cases[0].result("cpu", "compile")
    assert older.skipped_functions == ()
    with pytest.raises(SnapshotError, match="skipped_functions"):
        validate(snapshot(compile=dict(skipping, skipped_functions="h")), "t.json")
