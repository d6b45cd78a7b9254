"""``.. probe-stages::``: the probe's stages and which module owns what, drawn from the package itself.

The stage order is ``sphinx_kexport.probe.base.STAGES`` (the order the import
rule of ``tests/test_design.py`` enforces); each stage's job is its folder's
docstring and each module's job the first paragraph of its own docstring, read
from the source (nothing is imported, so the docs build never imports torch).
A new module, a moved one or a changed docstring shows here at the next build.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROLE = re.compile(r":[a-z]+:`~?\.*([^`]+)`")  # :class:`~.inventory.InventoryCase` -> inventory.InventoryCase


def probe_folder() -> Path:
    import sphinx_kexport.probe

    return Path(sphinx_kexport.probe.__file__).parent


def first_paragraph(path: Path) -> str:
    """The first paragraph of a module's docstring, on one line ("" when it has none)."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(docstring.split("\n\n")[0].split())


def _inline(text: str) -> list[nodes.Node]:
    """Docstring text as nodes: ``code`` spans and roles become literals; nothing else is interpreted."""
    text = ROLE.sub(lambda m: "``" + m.group(1).split(".")[-1] + "``", text)
    parts = text.split("``")
    if len(parts) % 2 == 0:  # an unpaired ``: keep the text as it is
        return [nodes.Text(text)]
    return [nodes.literal(part, part) if i % 2 else nodes.Text(part) for i, part in enumerate(parts) if part]


def stage_modules(folder: Path, stage: str) -> list[Path]:
    """The modules of a stage, those of its subfolders too (a subfolder's ``__init__.py`` stands for the
    subfolder), in path order; the stage's own ``__init__.py`` is its heading."""
    return sorted((p for p in (folder / stage).rglob("*.py") if p != folder / stage / "__init__.py"),
                  key=lambda p: p.relative_to(folder).parts)


def module_label(folder: Path, module: Path) -> str:
    """``run/pool.py``; a subfolder as ``cases/slice/``."""
    relative = module.relative_to(folder)
    return f"{relative.parent.as_posix()}/" if module.name == "__init__.py" else relative.as_posix()


def drawing(stages: tuple[str, ...]) -> str:
    """The stages in a row, each arrow pointing at what a stage may import."""
    row = " ◄── ".join(f"{stage}/" for stage in stages)
    return (f"{row}\n\n"
            "each stage imports only the stages to its left (lazy imports inside functions included);\n"
            "sphinx_kexport.probe itself (__init__.py, __main__.py) is the facade over all of them")


class ProbeStages(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from sphinx_kexport.probe.base import STAGES

        folder = probe_folder()
        self.env.note_dependency(str(folder / "base" / "__init__.py"))
        drawn = drawing(STAGES)
        out: list[nodes.Node] = [nodes.literal_block(drawn, drawn, classes=["kx-probe-stages"])]
        table = nodes.table(classes=["kx-probe-modules"])
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=22)
        group += nodes.colspec(colwidth=78)
        head = nodes.thead()
        head += self._row([nodes.Text("Module")], [nodes.Text("What it owns")])
        group += head
        body = nodes.tbody()
        group += body
        for stage in STAGES:
            package = folder / stage / "__init__.py"
            self.env.note_dependency(str(package))
            stage_text = [nodes.strong(f"{stage}/", f"{stage}/")]
            body += self._row(stage_text, [nodes.strong("", "", *_inline(first_paragraph(package)))])
            for module in stage_modules(folder, stage):
                self.env.note_dependency(str(module))
                name = module_label(folder, module)
                body += self._row([nodes.literal(name, name)], _inline(first_paragraph(module)))
        out.append(table)
        return out

    @staticmethod
    def _row(first: list[nodes.Node], second: list[nodes.Node]) -> nodes.row:
        row = nodes.row()
        for content in (first, second):
            entry = nodes.entry()
            entry += nodes.paragraph("", "", *content)
            row += entry
        return row


def setup(app):
    app.add_directive("probe-stages", ProbeStages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
