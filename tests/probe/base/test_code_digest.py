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


TOP = textwrap.dedent('''
    import torch
    from typing import Any

    EPS = 1e-6
    SCALE = 2 * EPS
    LIMIT = 10


    def helper(x):
        return x / (x.abs().max() + SCALE)


    def other(x):
        return x.clamp(max=LIMIT)


    class Box:
        size = 3

        def area(self):
            return self.size * torch.ones(1)
''')


def test_a_function_depends_on_the_top_level_names_it_reads_and_what_they_read():
    found = file_digests(TOP)
    assert list(found.globals_of(["helper"])) == ["global EPS SCALE"]  # SCALE = 2 * EPS
    assert list(found.globals_of(["other"])) == ["global LIMIT"]
    assert list(found.globals_of(["Box.area"])) == ["global Box torch"]  # a method reads its class


def test_adding_an_import_a_constant_or_a_function_moves_no_reader_of_other_names():
    base = file_digests(TOP).globals_of(["helper", "other", "Box.area"])
    added = TOP.replace("from typing import Any", "from typing import Any, Optional\nimport math") + \
        "\nNEW = 5\n__all__ = ['helper']\n\ndef unused():\n    return NEW\n"
    assert file_digests(added).globals_of(["helper", "other", "Box.area"]) == base


def test_an_edit_to_a_name_moves_exactly_its_readers():
    base = file_digests(TOP)
    eps = file_digests(TOP.replace("EPS = 1e-6", "EPS = 1e-5"))
    assert eps.globals_of(["helper"]) != base.globals_of(["helper"])  # through SCALE
    assert eps.globals_of(["other"]) == base.globals_of(["other"])
    attribute = file_digests(TOP.replace("size = 3", "size = 4"))
    assert attribute.globals_of(["Box.area"]) != base.globals_of(["Box.area"])
    assert attribute.globals_of(["helper"]) == base.globals_of(["helper"])
    # one name of an import is its own binding: renaming another name of the same import moves nothing
    typing = file_digests(TOP.replace("from typing import Any", "from typing import Sequence"))
    assert typing.globals_of(["Box.area"]) == base.globals_of(["Box.area"])


def test_a_method_added_to_a_class_or_a_def_that_rebinds_a_name_moves_its_readers():
    base = file_digests(TOP)
    # an override added beside the methods that ran: the instance may now run it instead
    override = file_digests(TOP.replace("class Box:\n", "class Box:\n    def __len__(self):\n        return 1\n\n"))
    assert override.globals_of(["Box.area"]) != base.globals_of(["Box.area"])
    assert override.globals_of(["helper"]) == base.globals_of(["helper"])
    # a reader of an imported name, when a def rebinds it
    reader = TOP + "\ndef typed(x):\n    return isinstance(x, Any)\n"
    rebound = file_digests(reader + "\ndef Any():\n    return 1\n")
    assert rebound.globals_of(["typed"]) != file_digests(reader).globals_of(["typed"])


def test_statements_that_bind_no_name_count_for_every_function():
    with_call = TOP + "\nregister(helper)\nfor n in range(2):\n    print(n)\n"
    found = file_digests(with_call)
    assert "<statements>" in found.globals_of(["other"]) and "<statements>" in found.globals_of(["Box.area"])
    moved = file_digests(with_call.replace("register(helper)", "register(other)"))
    assert moved.globals_of(["other"]) != found.globals_of(["other"])
    assert "<statements>" not in file_digests(TOP).globals_of(["other"])  # only bindings: nothing else counts


def test_a_statement_that_changes_one_name_in_place_counts_for_its_readers():
    base = file_digests(TOP + "\nCASES = []\nCASES.append(1)\n")
    more = file_digests(TOP + "\nCASES = []\nCASES.append(1)\nCASES.append(2)\nBox.extra = 1\n")
    assert more.globals_of(["helper"]) == base.globals_of(["helper"])  # a case added to a case module
    assert more.globals_of(["Box.area"]) != base.globals_of(["Box.area"])  # Box.extra = 1
    assert "<statements>" not in more.globals_of(["Box.area"])
    dtype = file_digests(TOP + "\ntorch.set_default_dtype(torch.float64)\n")
    assert dtype.globals_of(["Box.area"]) != base.globals_of(["Box.area"])  # it reads torch


def test_a_function_that_reads_globals_depends_on_every_name():
    found = file_digests(TOP + "\ndef lookup(name):\n    return globals()[name]\n")
    assert list(found.globals_of(["lookup"])) == ["global Any Box EPS LIMIT SCALE helper lookup other torch"]


def test_names_bound_under_if_or_try_are_bindings_and_their_conditions_count():
    source = TOP + textwrap.dedent('''
        try:
            import numpy as np
        except ImportError:
            np = None

        def uses_numpy(x):
            return np is not None
    ''')
    found = file_digests(source)
    assert list(found.globals_of(["uses_numpy"])) == ["global np"]
    assert file_digests(source.replace("np = None", "np = False")).globals_of(["uses_numpy"]) != \
        found.globals_of(["uses_numpy"])


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


def test_a_check_reads_the_top_level_refs_a_record_names(tmp_path):
    library = tmp_path / "lib"
    library.mkdir()
    (library / "ops.py").write_text(TOP)
    check = CodeCheck(CodePlaces("lib", str(library), str(tmp_path)))
    found = file_digests(TOP)
    code = {"lib/ops.py::helper": found.functions["helper"],
            **{f"lib/ops.py::{part}": digest for part, digest in found.globals_of(["helper"]).items()}}
    (library / "ops.py").write_text(TOP.replace("LIMIT = 10", "LIMIT = 11") + "\nimport math\n")
    assert check.changed(code) == []
    (library / "ops.py").write_text(TOP.replace("EPS = 1e-6", "EPS = 1e-5"))
    assert check.changed(code) == ["lib/ops.py::global EPS SCALE"]
    (library / "ops.py").write_text(TOP.replace("SCALE = 2 * EPS\n", "") + "\nregister(helper)\n")
    assert check.changed(code) == ["lib/ops.py::global EPS SCALE"]  # SCALE is gone
    assert check.current("lib/ops.py::<statements>") != GONE
    assert check.current("lib/ops.py::global EPS SCALE") == GONE
    assert check.current("lib/ops.py::global EPS") != GONE  # any set of names the file binds can be asked for


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
    assert calls == [] and again == parsed  # every field comes back, the names each function reads too
    assert again.function_at(parsed.spans[0][0]) == parsed.spans[0][2]  # the line map comes back too
    source.write_text(SOURCE.replace("return y * 2", "return y * 5"))
    changed = code_digest.SourceDigests(store).of_file(str(source))
    assert len(calls) == 1 and changed.functions["Box.area"] != parsed.functions["Box.area"]
    (tmp_path / "store" / "digests.json").write_text("not json")
    assert code_digest.SourceDigests(store).of_file(str(source)).top == parsed.top  # a damaged store: parsed
