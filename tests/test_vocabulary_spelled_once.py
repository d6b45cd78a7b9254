"""No path, device, status, dynamic-status or stage word is spelled outside ``snapshot/vocabulary.py``.

Every display (the page model, the writers, the templates, the progress, the
browser script) derives from the vocabulary's records, so a new status cannot
be missing from one of them. A word spelled as a literal elsewhere is a second,
silent definition: this test names its file and line. Checked from the source
(Python's AST; the templates and the script by their quoted strings).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from sphinx_kexport.snapshot import vocabulary

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "sphinx_kexport"
VOCABULARY = PACKAGE / "snapshot" / "vocabulary.py"
WORDS = frozenset(str(w) for w in (*vocabulary.PATHS, *vocabulary.DEVICES, *vocabulary.STATUSES,
                                   *vocabulary.DYNAMIC_STATUSES, *vocabulary.STAGES, *vocabulary.SPEED_VERDICTS) if w)
QUOTED = re.compile(r"""(["'])([a-z/-]+)\1""")
# A one-letter status or mark code compared in a template or the script ({% if c.code == "o" %}).
CODE_COMPARED = re.compile(r"""\bcode\s*[!=]==?\s*["'][a-z-]["']""")


# The same spelling with another meaning: (file, literal) -> how many times, and why it is not the vocabulary's
# word. A count, so that one more use of the word in such a file fails the test.
OTHER_MEANINGS = {
    ("sphinx_kexport/page/parts/directive.py", "'compare'"): (3, "the directive's :compare: option"),
    ("sphinx_kexport/page/sphinx_env/resources.py", "'static'"): (1, "the package's static/ folder"),
    ("sphinx_kexport/snapshot/records.py", "'check'"): (1, "a case's check field (exact or random)"),
    ("sphinx_kexport/probe/cases/describe.py", "'check'"): (1, "a case's check field"),
    ("sphinx_kexport/snapshot/repro.py", "'check'"): (1, "a case's check field"),
    ("sphinx_kexport/probe/cases/fingerprint.py", "'check'"): (1, "a key of the hashed case definition"),
    ("sphinx_kexport/probe/cases/fingerprint.py", "'skip'"): (1, "a key of the hashed case definition"),
    ("sphinx_kexport/probe/measure/graph_breaks.py", "'eager'"): (1, "torch.compile's backend of that name"),
    ("sphinx_kexport/probe/measure/graph_breaks.py", "'ok'"): (1, "a key of dynamo's own frame counters"),
    ("sphinx_kexport/probe/survey/config.py", "'timeout'"): (2, "the [tool.sphinx-kexport] setting's name"),
    ("sphinx_kexport/probe/base/__init__.py", "'run'"): (1, "the probe's run/ folder, a stage of its pipeline"),
    # the onnx package (its name, the key of its version in an environment) and the environment's CUDA version
    ("sphinx_kexport/page/parts/provenance.py", "'onnx'"): (2, "the onnx package's version key and its label"),
    ("sphinx_kexport/page/parts/provenance.py", "'cuda'"): (1, "the environment's CUDA version key"),
    ("sphinx_kexport/probe/measure/environment.py", "'onnx'"): (2, "the onnx package's name and version key"),
    ("sphinx_kexport/probe/measure/environment.py", "'cuda'"): (2, "the environment's CUDA version key"),
    ("sphinx_kexport/probe/run/inventory.py", "'cuda'"): (2, "the inventory's CUDA-available key"),
    ("sphinx_kexport/probe/base/reuse/decide.py", "'onnx'"): (1, "the onnx package's version key"),
    ("sphinx_kexport/snapshot/kornia_format.py", "'onnx'"): (3, "Kornia's onnx version column and key"),
    ("sphinx_kexport/probe/cases/slice/case_source.py", "'onnx'"): (1, "the module name a repro snippet imports"),
    ("sphinx_kexport/probe/discover/suite/suite_run.py", "'cuda'"): (2, "a word of a test's skip reason"),
}


def python_literals(source: str) -> list[tuple[int, str]]:
    """(line, word) for every string constant of ``source`` that is a vocabulary word."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in WORDS]


def markup_literals(text: str) -> list[tuple[int, str]]:
    """(line, what) for every quoted vocabulary word and every literal code comparison in a template or script."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found += [(number, match.group(0)) for match in QUOTED.finditer(line) if match.group(2) in WORDS]
        found += [(number, match.group(0)) for match in CODE_COMPARED.finditer(line)]
    return found


def _sources() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != VOCABULARY]


def _markup() -> list[Path]:
    return sorted((PACKAGE / "page" / "templates").glob("*.jinja")) + sorted((PACKAGE / "page" / "static").glob("*.js"))


def _found() -> dict[tuple[str, str], list[int]]:
    """(file, literal) -> the lines that spell it."""
    found: dict[tuple[str, str], list[int]] = {}
    for path in _sources():
        for line, word in python_literals(path.read_text(encoding="utf-8")):
            found.setdefault((path.relative_to(REPO).as_posix(), repr(word)), []).append(line)
    for path in _markup():
        for line, what in markup_literals(path.read_text(encoding="utf-8")):
            found.setdefault((path.relative_to(REPO).as_posix(), what), []).append(line)
    return found


def test_no_vocabulary_word_is_spelled_outside_the_vocabulary():
    found = [f"{file}:{','.join(map(str, lines))}: {what}" for (file, what), lines in sorted(_found().items())
             if len(lines) != OTHER_MEANINGS.get((file, what), (0, ""))[0]]
    assert not found, ("path, device, status, dynamic-status or stage words spelled outside snapshot/vocabulary.py "
                       "(use its records):\n" + "\n".join(found))


def test_the_checker_sees_literals():
    """The checker itself: it must find what it forbids, or the test above passes vacuously."""
    assert python_literals('x = "ok-breaks"\nif s == "timeout": pass\n"""a docstring about ok"""') == [
        (1, "ok-breaks"), (2, "timeout")]
    planted = 'if path == "compile" and device != "cuda": pass\nd = {"onnx": 1}\nx = "cudas"'
    assert sorted(python_literals(planted)) == [(1, "compile"), (1, "cuda"), (2, "onnx")]
    assert markup_literals('{% if c.code == "o" %}\nif (filter === "fail") x;\nvar y = "okay";') == [
        (1, 'c.code == "o"'.removeprefix("c.")), (2, '"fail"')]
    assert markup_literals('if (columnPath[c] === "onnx") x;\nvar d = "cpu", e = "onnx-operators";') == [
        (1, '"onnx"'), (2, '"cpu"')]
    assert _sources() and _markup() and {"ok", "n/a", "static", "compare", "no-tensor"} <= WORDS
    assert {"onnx", "export", "compile", "cpu", "cuda"} <= WORDS


def test_a_planted_path_or_device_literal_fails(tmp_path, monkeypatch):
    """A module or a script that spells a path or a device itself is named, with its line, by the check above
    (run here over a copy of the layout that holds one planted module and one planted script)."""
    package = tmp_path / "sphinx_kexport"
    (package / "page" / "static").mkdir(parents=True)
    (package / "page" / "planted.py").write_text('DEVICE = "cuda"\nPATHS = ("onnx", "export")\n', encoding="utf-8")
    (package / "page" / "static" / "planted.js").write_text('if (p === "compile") x;\n', encoding="utf-8")
    module = sys.modules[__name__]
    monkeypatch.setattr(module, "REPO", tmp_path)
    monkeypatch.setattr(module, "PACKAGE", package)
    assert _found() == {("sphinx_kexport/page/planted.py", "'cuda'"): [1],
                        ("sphinx_kexport/page/planted.py", "'onnx'"): [2],
                        ("sphinx_kexport/page/planted.py", "'export'"): [2],
                        ("sphinx_kexport/page/static/planted.js", '"compile"'): [1]}


def test_every_other_meaning_is_still_there():
    """An allowance whose literal is gone is stale: remove it, so it cannot excuse a new use of the word."""
    found = _found()
    stale = [f"{file}: {what}" for (file, what) in OTHER_MEANINGS if (file, what) not in found]
    assert not stale, "OTHER_MEANINGS lists literals no longer in the source: " + "; ".join(stale)
