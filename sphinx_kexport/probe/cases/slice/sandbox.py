"""A slice written out as a snippet (starting ``import torch``), and run in a fresh namespace that leaves every
random stream as it was."""

from __future__ import annotations

import ast
import random
from typing import Any

from ..registry import IMPORT_SEED

SEED_LINE = f"torch.manual_seed({IMPORT_SEED})  # the seed the probe imports case modules under"


def snippet_source(statements: list[ast.stmt], seeded: bool, tail: list[str]) -> str:
    lines = ["import torch"] + ([SEED_LINE] if seeded else [])
    for statement in statements:
        text = ast.unparse(statement)
        if text != "import torch":
            # a blank line after a def or class, so that the snippet also pastes into an interactive python
            lines.append(text + ("\n" if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                 ast.ClassDef)) else ""))
    return "\n".join(lines + tail)


def run_fresh(code: str) -> dict[str, Any] | None:
    """``code`` run in a fresh namespace, leaving every random stream as it was; None if it raises."""
    import numpy
    import torch

    namespace: dict[str, Any] = {"__name__": "__kexport_repro__"}
    python_state, numpy_state = random.getstate(), numpy.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            # dont_inherit: this module's `from __future__ import annotations` must not reach the code, which a
            # user's fresh interpreter runs without it (a dataclass it defines would look its types up by name)
            exec(compile(code, "<case source>", "exec", dont_inherit=True), namespace)
    except Exception:
        return None
    finally:
        random.setstate(python_state)
        numpy.random.set_state(numpy_state)
    return namespace
