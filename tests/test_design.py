"""The layout's import rules, checked from the source (AST), so they cannot rot.

* ``sphinx_kexport.snapshot`` (the contract) imports neither sphinx, docutils,
  jinja2 nor torch: both halves depend on it;
* ``sphinx_kexport.probe`` (the torch half) never imports sphinx, docutils or
  jinja2;
* nothing outside ``probe`` imports ``probe`` (the docs build never imports torch);
* no module imports another module's private (``_``) names;
* within ``page``, cut one way: ``model/`` (plain Python: no docutils, sphinx or
  jinja2) imports neither ``parts/``, ``writers/`` nor ``sphinx_env/``; ``parts/``
  (the components, as doctree nodes) never import ``writers/``, nor ``writers/``
  (one per builder family) ``parts/``;
* within ``probe``, the stages import one way: ``base -> cases -> measure ->
  discover -> run -> survey -> cli``, a stage importing only the stages before
  it (``probe/__init__.py`` and ``__main__.py``, the facade, import anything);
* every exception class of the probe derives from ``ProbeError`` and is
  exported from ``sphinx_kexport.probe``.

Every import counts, also one inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sphinx_kexport.probe.base import STAGES

PACKAGE = Path(__file__).resolve().parents[1] / "sphinx_kexport"


def _imports(path: Path, text: str | None = None) -> list[tuple[str, list[str], int]]:
    """(absolute module, imported names, line) for every import in ``path`` (or in ``text``, as if it were
    ``path``), relative ones resolved."""
    module_parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module_parts[:-1]  # the package a relative import starts from (also for __init__.py)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if text is None else text)):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found.append((name, [alias.name for alias in node.names], node.lineno))
    return found


def _targets(path: Path, text: str | None = None) -> list[tuple[str, int]]:
    """(module, line) for every module an import in ``path`` may load: ``from .. import parts``
    names ``sphinx_kexport.page`` and ``sphinx_kexport.page.parts``."""
    return [(target, line) for module, names, line in _imports(path, text)
            for target in [module] + [f"{module}.{name}" for name in names]]


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _modules(sub: str) -> list[Path]:
    return sorted((PACKAGE / sub).rglob("*.py")) if sub else sorted(PACKAGE.rglob("*.py"))


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("path", _modules("snapshot"), ids=lambda p: p.name)
def test_the_contract_uses_the_standard_library_only(path):
    banned = {"sphinx", "docutils", "jinja2", "torch", "numpy", "onnx", "onnxruntime"}
    bad = [(m, line) for m, _, line in _imports(path) if _top(m) in banned or m.startswith("sphinx_kexport.page")
           or m.startswith("sphinx_kexport.probe")]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


@pytest.mark.parametrize("path", _modules("probe"), ids=lambda p: p.name)
def test_the_probe_never_imports_sphinx(path):
    bad = [(m, line) for m, _, line in _imports(path)
           if _top(m) in {"sphinx", "docutils", "jinja2"} or m.startswith("sphinx_kexport.page")]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


@pytest.mark.parametrize("path", [p for p in _modules("") if "probe" not in p.relative_to(PACKAGE).parts],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_outside_the_probe_imports_it(path):
    bad = [(m, line) for m, _, line in _imports(path) if m.startswith("sphinx_kexport.probe")]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


@pytest.mark.parametrize("path", _modules(""), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_private_names_of_another(path):
    bad = [(m, n, line) for m, names, line in _imports(path) if m.startswith("sphinx_kexport")
           for n in names if n.startswith("_") and n != "__version__"]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports private names {bad}"


PAGE = "sphinx_kexport.page"
PAGE_LAYERS = {  # a package of page/ -> what its modules must not import
    "model": (f"{PAGE}.parts", f"{PAGE}.writers", f"{PAGE}.sphinx_env", "docutils", "sphinx", "jinja2"),
    "parts": (f"{PAGE}.writers",),
    "writers": (f"{PAGE}.parts",),
}


@pytest.mark.parametrize("path", [p for layer in PAGE_LAYERS for p in _modules(f"page/{layer}")],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_page_is_cut_one_way(path):
    banned = PAGE_LAYERS[path.relative_to(PACKAGE / "page").parts[0]]
    bad = [(m, line) for m, line in _targets(path) if _within(m, banned)]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


def test_the_rules_see_real_imports():
    """The checker itself: it must resolve relative imports, or every rule above passes vacuously."""
    found = {m for m, _, _ in _imports(PACKAGE / "page" / "parts" / "directive.py")}
    assert "sphinx_kexport.snapshot" in found and "sphinx_kexport.page.model.page_model" in found
    found = {m for m, _, _ in _imports(PACKAGE / "snapshot" / "files.py")}
    assert "sphinx_kexport.snapshot.validation" in found
    found = {m for m, _ in _targets(PACKAGE / "page" / "parts" / "cards.py")}  # from . import changes, inline
    assert "sphinx_kexport.page.parts.changes" in found and "sphinx_kexport.page.model.page_model" in found
    assert all(_modules(f"page/{layer}") for layer in PAGE_LAYERS)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """module -> the modules of the package it imports, lazy imports (inside functions, under TYPE_CHECKING)
    included: ``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``."""
    known = {_module_name(p): p for p in _modules("")}
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for module, names, _ in _imports(path):
            if module not in known:
                continue
            submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in known]
            graph[name].update(submodules)
            if len(submodules) < len(names) or not names:
                graph[name].add(module)
        graph[name].discard(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_anywhere_in_the_package():
    cycles = _cycles(_import_graph())
    assert not cycles, "import circles (each a set of modules that import each other, lazily or not): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_the_circle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = _import_graph()
    assert "sphinx_kexport.probe.survey.plan" in graph["sphinx_kexport.probe.survey.api"]


PROBE = "sphinx_kexport.probe"
PROBE_STAGES = STAGES  # each imports only those before it


def _stage(module: str) -> str | None:
    """The probe stage a module belongs to (None for the facade, ``probe`` itself, and anything outside)."""
    parts = module.split(".")
    return parts[2] if module.startswith(PROBE + ".") and len(parts) > 2 and parts[2] in PROBE_STAGES else None


def _stage_violations(path: Path, text: str | None = None) -> list[str]:
    """Every import in ``path`` (a module of a probe stage; ``text``: its source, when given) of a later stage, as
    'file:line: rule'."""
    stage = _stage(_module_name(path))
    allowed = PROBE_STAGES[: PROBE_STAGES.index(stage) + 1] if stage else PROBE_STAGES
    where = path.relative_to(PACKAGE.parent)
    found = []
    for module, line in _targets(path, text):
        target = _stage(module)
        if module == PROBE or (target is not None and target not in allowed):  # the facade imports every stage
            found.append(f"{where}:{line}: the {stage} stage imports {module} ({target or 'the probe facade'}); "
                         f"the stages import one way, {' -> '.join(PROBE_STAGES)}")
    return found


@pytest.mark.parametrize("path", [p for stage in PROBE_STAGES for p in _modules(f"probe/{stage}")],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_probe_stages_import_one_way(path):
    bad = _stage_violations(path)
    assert not bad, "\n".join(bad)


def test_every_probe_module_is_in_a_stage():
    """Only the facade sits in probe/ itself; a new folder is a new stage, placed in PROBE_STAGES."""
    assert {p.name for p in (PACKAGE / "probe").glob("*.py")} == {"__init__.py", "__main__.py"}
    folders = {p.name for p in (PACKAGE / "probe").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(PROBE_STAGES), f"probe/ folders that are no stage: {sorted(folders - set(PROBE_STAGES))}"


def test_the_stage_rule_sees_real_cross_stage_imports():
    """The stage checker itself: it must see the imports between stages (lazy, relative), or it passes vacuously."""
    crossing = {(_stage(_module_name(p)), _stage(m)) for stage in PROBE_STAGES for p in _modules(f"probe/{stage}")
                for m, _ in _targets(p)}
    assert ("survey", "run") in crossing and ("run", "discover") in crossing and ("measure", "cases") in crossing
    assert ("cli", "survey") in crossing  # cli/probe.py imports survey.api inside a function
    assert all(_modules(f"probe/{stage}") for stage in PROBE_STAGES)
    assert _stage("sphinx_kexport.probe.run.pool") == "run" and _stage("sphinx_kexport.probe") is None
    # a backwards import, lazy and relative, is found with its file, line and the rule
    assert _stage_violations(PACKAGE / "probe" / "run" / "worker.py") == []
    wrong = PACKAGE / "probe" / "cases" / "_kx_wrong_way_probe_test.py"  # read from the text given, not written
    bad = _stage_violations(wrong, "def f():\n    from ..run.pool import Task\n")
    assert bad == ["sphinx_kexport/probe/cases/_kx_wrong_way_probe_test.py:2: the cases stage imports "
                   "sphinx_kexport.probe.run.pool (run); the stages import one way, "
                   "base -> cases -> measure -> discover -> run -> survey -> cli",
                   "sphinx_kexport/probe/cases/_kx_wrong_way_probe_test.py:2: the cases stage imports "
                   "sphinx_kexport.probe.run.pool.Task (run); the stages import one way, "
                   "base -> cases -> measure -> discover -> run -> survey -> cli"]


def _probe_exception_classes() -> list[tuple[str, str, int]]:
    """(module, class name, line) for every exception class defined in the probe, found from the source (a class
    whose base is a built-in exception or another exception class of the probe), so a new one anywhere is seen."""
    import builtins

    classes = [(_module_name(path), node) for path in _modules("probe")
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)]
    errors = {name for name, value in vars(builtins).items() if isinstance(value, type)
              and issubclass(value, BaseException)}
    found: dict[tuple[str, str], int] = {}
    grew = True
    while grew:  # a subclass of a probe error (TorchLacks(LoadError)) is one too
        grew = False
        for module, node in classes:
            bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                     for b in node.bases}
            if (module, node.name) not in found and bases & errors:
                found[(module, node.name)] = node.lineno
                errors.add(node.name)
                grew = True
    return sorted((module, name, line) for (module, name), line in found.items())


def test_every_probe_error_derives_from_probe_error_and_is_exported():
    import sphinx_kexport.probe as probe

    classes = _probe_exception_classes()
    assert len(classes) >= 16 and ("sphinx_kexport.probe.survey.api", "SurveyStopped") in {c[:2] for c in classes}
    assert ("sphinx_kexport.probe.cases.inventory", "TorchLacks") in {c[:2] for c in classes}  # LoadError's
    bad = []
    for module, name, line in classes:
        where = f"{module.replace('.', '/')}.py:{line}: {name}"
        exported = getattr(probe, name, None)
        if name not in probe.__all__ or getattr(exported, "__module__", "") != module:
            bad.append(f"{where} is not exported from sphinx_kexport.probe (__all__); every probe error is")
        elif not issubclass(exported, probe.ProbeError):
            bad.append(f"{where} does not derive from sphinx_kexport.probe.ProbeError")
    assert not bad, "\n".join(bad)
    assert issubclass(probe.CaseError, ValueError) and issubclass(probe.DownloadBlocked, RuntimeError)
