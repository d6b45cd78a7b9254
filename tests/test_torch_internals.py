"""Every place the probe reaches into torch's internals is named in the development docs' list.

A reach is an import of, or an attribute chain through, a private (``_``-prefixed) part of ``torch``: ``import
torch._dynamo``, ``from torch._guards import TracingContext``, ``torch._dynamo.config.capture_scalar_outputs``,
``from torch.utils._python_dispatch import TorchDispatchMode``, or an attribute chain through a name such an
import bound. Each is found from the source (AST) and must be a row of ``example_docs/develop/torch-internals.rst``
that names its module; a row whose internal no module uses any more is stale.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = REPO / "sphinx_kexport" / "probe"
PAGE = REPO / "example_docs" / "develop" / "torch-internals.rst"


def _private(chain: str) -> bool:
    return chain.split(".")[0] == "torch" and any(part.startswith("_") and not part.startswith("__")
                                                  for part in chain.split("."))


def _chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None when it does not start at a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def _resolved(node: ast.AST, bound: dict[str, str]) -> str | None:
    """The torch chain ``node`` stands for (an attribute chain, or ``getattr(chain, "name", ...)``), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
        inner = _resolved(node.args[0], bound)
        return f"{inner}.{node.args[1].value}" if inner else None
    parts = _chain(node)
    return ".".join([bound[parts[0]], *parts[1:]]) if parts and parts[0] in bound else None


def reaches(source: str) -> set[str]:
    """The private torch names ``source`` uses, each as its longest dotted chain (``torch._dynamo.reset``)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # a local name -> the torch chain it stands for
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torch":
                    bound[alias.asname or "torch"] = alias.name if alias.asname else "torch"
                    if _private(alias.name):
                        found.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
            for alias in node.names:
                chain = f"{node.module}.{alias.name}"
                bound[alias.asname or alias.name] = chain
                if _private(chain):
                    found.add(chain)
    for node in ast.walk(tree):  # name = torch.x._y, or name = getattr(torch.x, "_y", None): the name is a reach
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            chain = _resolved(node.value, bound)
            if chain:
                bound[node.targets[0].id] = chain
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 2 \
                and node.func.id in ("getattr", "setattr", "hasattr") and isinstance(node.args[1], ast.Constant):
            chain = _resolved(node.args[0], bound)
            if chain and _private(f"{chain}.{node.args[1].value}"):
                found.add(f"{chain}.{node.args[1].value}")
    outer = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in outer:  # the longest chain only
            parts = _chain(node)
            if parts and parts[0] in bound:
                chain = ".".join([bound[parts[0]], *parts[1:]])
                if _private(chain):
                    found.add(chain)
    return found


def listed() -> dict[str, str]:
    """The page's rows: each internal it names (the ``literals`` of a row's first cell) -> the row's text."""
    rows = re.split(r"\n   \* - ", PAGE.read_text(encoding="utf-8"))[1:]
    names = {}
    for row in rows:
        first, _, rest = row.partition("\n     - ")
        for name in re.findall(r"``([^`]+)``", first):
            names[name] = rest
    return names


def probe_reaches() -> dict[str, set[str]]:
    """internal -> the probe's modules (``measure/code_watch.py``) that use it."""
    used: dict[str, set[str]] = {}
    for path in sorted(PROBE.rglob("*.py")):
        for chain in reaches(path.read_text(encoding="utf-8")):
            used.setdefault(chain, set()).add(path.relative_to(PROBE).as_posix())
    return used


def test_every_reach_into_torch_internals_is_listed_with_its_module():
    rows = listed()
    used = probe_reaches()
    missing = [f"{chain} (in {', '.join(sorted(where))})" for chain, where in sorted(used.items()) if chain not in rows]
    assert not missing, (f"the probe reaches into torch internals that {PAGE.relative_to(REPO)} does not list: "
                         f"{'; '.join(missing)}. Add a row: what it uses, why, what happens without it, the torch "
                         "versions it was checked on")
    unnamed = [f"{chain}: {module}" for chain, where in sorted(used.items()) for module in sorted(where)
               if module not in rows[chain]]
    assert not unnamed, f"rows of {PAGE.name} that do not name the module using them: {unnamed}"
    stale = sorted(set(rows) - set(used))
    assert not stale, f"{PAGE.name} lists internals no module of the probe uses any more: {stale}"


def test_the_scanner_sees_each_kind_of_reach():
    """The checker itself: imports, from-imports, chains through torch and through a bound private module."""
    source = ("import torch\nimport torch._dynamo\nfrom torch._guards import TracingContext\n"
              "from torch.utils._python_dispatch import TorchDispatchMode as Mode\n"
              "from torch._inductor import cpu_vec_isa\nimport torch.nn as nn\n"
              "def f():\n    torch._dynamo.config.capture_scalar_outputs = True\n    cpu_vec_isa.pick_vec_isa()\n"
              "    nn._reduction.get_enum('mean')\n    torch.nn.functional.relu(x)\n    y.__class__\n"
              "    cls = getattr(cpu_vec_isa, 'VecISA', None)\n    cls.pick = g\n")
    assert reaches(source) == {"torch._dynamo", "torch._guards.TracingContext",
                               "torch.utils._python_dispatch.TorchDispatchMode", "torch._inductor.cpu_vec_isa",
                               "torch._dynamo.config.capture_scalar_outputs",
                               "torch._inductor.cpu_vec_isa.pick_vec_isa", "torch.nn._reduction.get_enum",
                               "torch._inductor.cpu_vec_isa.VecISA", "torch._inductor.cpu_vec_isa.VecISA.pick"}
