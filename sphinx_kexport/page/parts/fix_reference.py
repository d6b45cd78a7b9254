"""``.. kexport-fix-classes::``: every failure class with its fix in words and its code shape, one reference page.

Rendered from the records themselves (``snapshot.fix_classes``), so the page cannot drift from what the
cells and the worklist say. Each class has the anchor ``kexport-fix-<class>`` (the ``data-kx-fix`` of a red
detail and of a reason index entry, whose class title links there in HTML). The names in torch's documentation are
cross-references: with
``sphinx.ext.intersphinx`` and an inventory of torch's docs they link there, without one they stay code, and
never warn. A page of torch's docs (``std:doc``) is looked up in the inventory that holds ``torch.where``
(intersphinx resolves documents only by an explicit inventory name).
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from ...snapshot.fix_classes import FIX_CLASSES, WORKFLOWS, FixClass
from ..model.fixes import ANCHOR_PREFIX
from ..sphinx_env.env_state import note_fix_page


def _torch_inventory(env) -> str:
    """The name of the intersphinx inventory that documents torch, or ""."""
    named = getattr(env, "intersphinx_named_inventory", None) or {}
    for name, inventory in named.items():
        if "torch.where" in inventory.get("py:function", {}):
            return name
    return ""


def _xref(role: str, target: str, docname: str, inventory: str) -> addnodes.pending_xref:
    domain, reftype = role.split(":", 1)
    if reftype == "doc":
        label = target.rsplit("/", 1)[-1].replace("programming_model.", "").replace("_", " ")
        content: nodes.Node = nodes.inline(label, label)
        target = f"{inventory}:{target}" if inventory else target
    else:
        content = nodes.literal(target, target, classes=["xref", domain, f"{domain}-{reftype}"])
    return addnodes.pending_xref("", content, refdomain=domain, reftype=reftype, reftarget=target,
                                 refexplicit=reftype == "doc", refwarn=False, refdoc=docname)


def _class_nodes(fix: FixClass, docname: str, inventory: str) -> list[nodes.Node]:
    title = nodes.rubric(fix.title, fix.title, ids=[ANCHOR_PREFIX + fix], classes=["kexport-fix-title"])
    body = nodes.paragraph("", "", nodes.strong("", "Fix: "), nodes.Text(fix.fix + "."))
    out: list[nodes.Node] = [title, body]
    if fix.before:
        for label, code in (("Before", fix.before), ("After", fix.after)):
            out.append(nodes.paragraph("", f"{label}:", classes=["kexport-fix-shape"]))
            out.append(nodes.literal_block(code, code, language="python"))
    see = nodes.paragraph("", "In torch's documentation: ")
    for i, (role, target) in enumerate(fix.docs):
        if i:
            see += nodes.Text(", ")
        see += _xref(role, target, docname, inventory)
    out.append(see)
    out.append(nodes.paragraph("", "", nodes.Text("Its id in the page's data: "), nodes.literal(str(fix), str(fix))))
    return out


class FixClassesDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        inventory = _torch_inventory(self.env)
        note_fix_page(self.env, self.env.docname)  # a red cell's class links here (writers.html)
        out: list[nodes.Node] = []
        for workflow in WORKFLOWS:
            heading = nodes.rubric(workflow, workflow, classes=["kexport-fix-workflow"])
            out.append(heading)
            for fix in FIX_CLASSES:
                if fix.workflow == workflow:
                    out.extend(_class_nodes(fix, self.env.docname, inventory))
        return out


def setup_fix_reference(app) -> None:
    app.add_directive("kexport-fix-classes", FixClassesDirective)
