"""Digests of the code a case runs: they move with behaviour, not with comments, docstrings or formatting."""

from __future__ import annotations

import textwrap

from sphinx_kexport.probe.base.code_digest import GONE, CodeCheck, CodePlaces, code_set_id, file_digests

SOURCE = textwrap.dedent('''
    """A module."""
    import torch

    EPS = 1e-6


    def helper(x):
        """Scale x."""
        return x / (x.abs().max() + EPS)


    class Box:
        """A box."""
        scale = 2.0

        @staticmethod
        def area(x):
            def inner(y):
                return y * 2
            return inner(x) + (lambda z: z)(x)

        @property
        def side(self):
            return 1

        @side.setter
        def side(self, value):
            pass
''')


def digests(text: str):
    return file_digests(textwrap.dedent(text))


def test_comments_docstrings_and_formatting_do_not_move_a_digest():
    base = file_digests(SOURCE)
    edited = file_digests(SOURCE.replace('"""Scale x."""', '"""Scale x by its largest magnitude."""')
                          .replace("return x / (x.abs().max() + EPS)",
                                   "# never divide by zero\n    return x / (\n        x.abs().max() + EPS\n    )")
                          .replace('"""A module."""', "").replace("    scale = 2.0\n", "    scale = 2.0  # why\n"))
    assert edited.top == base.top and edited.functions == base.functions


def test_a_body_edit_moves_that_function_only_and_a_signature_edit_the_top_level():
    base = file_digests(SOURCE)
    body = file_digests(SOURCE.replace("return y * 2", "return y * 3"))
    assert body.functions["Box.area"] != base.functions["Box.area"]  # a nested function belongs to its outer one
    assert {k: v for k, v in body.functions.items() if k != "Box.area"} == \
        {k: v for k, v in base.functions.items() if k != "Box.area"}
    assert body.top == base.top
    constant = file_digests(SOURCE.replace("EPS = 1e-6", "EPS = 1e-5"))
    assert constant.top != base.top and constant.functions == base.functions
    signature = file_digests(SOURCE.replace("def helper(x):", "def helper(x, eps=0.0):"))
    assert signature.top == base.top and signature.functions["helper"] != base.functions["helper"]
    added = file_digests(SOURCE + "\n\ndef another(x):\n    return x\n")
    assert added.top == base.top and {k: v for k, v in added.functions.items() if k != "another"} == base.functions
    attribute = file_digests(SOURCE.replace("scale = 2.0", "scale = 3.0"))
    assert attribute.top != base.top and attribute.functions == base.functions


def test_lines_and_code_objects_map_to_their_outermost_function():
    found = file_digests(SOURCE)
    lines = SOURCE.splitlines()
    at = {text.strip(): i + 1 for i, text in enumerate(lines)}
    assert found.function_at(at["return x / (x.abs().max() + EPS)"]) == "helper"
    assert found.function_at(at["return y * 2"]) == "Box.area"
    assert found.function_at(at["def helper(x):"]) is None  # runs when the module is imported, not when called
    assert found.function_at(at["EPS = 1e-6"]) is None
    assert found.function_named("Box.area.<locals>.inner") == "Box.area"
    assert found.function_named("Box") is None and found.function_named("<module>") is None
    assert "Box.side" in found.functions  # a property and its setter: one ref


def test_a_check_names_what_changed_and_what_is_gone(tmp_path):
    library = tmp_path / "lib"
    library.mkdir()
    (library / "ops.py").write_text(SOURCE)
    places = CodePlaces("lib", str(library), str(tmp_path))
    check = CodeCheck(places)
    found = file_digests(SOURCE)
    code = {"lib/ops.py": found.top, "lib/ops.py::helper": found.functions["helper"],
            "lib/ops.py::Box.area": found.functions["Box.area"]}
    assert places.ref_for(str(library / "ops.py")) == "lib/ops.py"
    assert places.ref_for(str(tmp_path / "cases" / "c.py")) == "./cases/c.py"
    assert places.path_for("./cases/c.py::f") == str(tmp_path / "cases" / "c.py")
    assert check.changed(code) == []
    (library / "ops.py").write_text(SOURCE.replace("return y * 2", "return y * 4"))
    assert check.changed(code) == ["lib/ops.py::Box.area"]
    (library / "ops.py").write_text(SOURCE.replace("def helper(x):", "def renamed(x):"))
    assert check.current("lib/ops.py::helper") == GONE
    assert "lib/ops.py::helper" in check.changed(code)
    (library / "ops.py").unlink()
    assert check.changed(code) == sorted(code)


def test_a_set_id_is_a_digest_of_the_set():
    assert code_set_id({"a": "1", "b": "2"}) == code_set_id({"b": "2", "a": "1"})
    assert code_set_id({"a": "1"}) != code_set_id({"a": "2"})


def test_a_file_that_does_not_parse_is_one_opaque_text():
    broken = digests("def f(:\n")
    assert broken.functions == {} and broken.top == digests("def f(:\n").top != digests("def f(:  \n").top


def test_the_snapshot_table_holds_each_pair_once_and_unpacks_to_the_sets():
    from sphinx_kexport.snapshot.code_table import pack, unpack

    sets = {"a": {"lib/x.py": "1", "lib/x.py::f": "2"}, "b": {"lib/x.py": "1", "lib/x.py::g": "3"}}
    table = pack(sets)
    assert len(table["refs"]) == 3 and unpack(table) == sets
    assert pack(dict(reversed(list(sets.items())))) == table  # the same sets, the same bytes
    assert unpack(None) == {} and unpack({"refs": {}, "sets": {"c": ["missing"]}}) == {"c": {}}


def test_a_store_keeps_what_was_parsed_for_the_next_run_by_the_files_bytes(tmp_path, monkeypatch):
    from sphinx_kexport.probe.base import code_digest

    source = tmp_path / "ops.py"
    source.write_text(SOURCE)
    store = str(tmp_path / "store" / "digests.json")
    first = code_digest.SourceDigests(store)
    parsed = first.of_file(str(source))
    first.save()
    calls = []
    monkeypatch.setattr(code_digest, "file_digests", lambda text: calls.append(text) or file_digests(text))
    again = code_digest.SourceDigests(store).of_file(str(source))
    assert calls == [] and again.functions == parsed.functions and again.top == parsed.top
    assert again.function_at(parsed.spans[0][0]) == parsed.spans[0][2]  # the line map comes back too
    source.write_text(SOURCE.replace("return y * 2", "return y * 5"))
    changed = code_digest.SourceDigests(store).of_file(str(source))
    assert len(calls) == 1 and changed.functions["Box.area"] != parsed.functions["Box.area"]
    (tmp_path / "store" / "digests.json").write_text("not json")
    assert code_digest.SourceDigests(store).of_file(str(source)).top == parsed.top  # a damaged store: parsed
