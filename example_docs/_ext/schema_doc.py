"""``.. snapshot-schema::``: the snapshot format's reference, rendered from the JSON schema itself.

The docs page cannot drift from the schema the probe and the page validate
against: every field, type, "required" mark and description comes from the
schema file at build time. Schema text is untrusted here like any data: it
only ever becomes text and literal nodes, never parsed markup.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

ANCHOR_PREFIX = "snapshot-schema-"


def schema_path() -> Path:
    """The schema the package ships (and validates every snapshot against)."""
    from sphinx_kexport.snapshot import SCHEMA_PATH

    return Path(SCHEMA_PATH)


def _text_with_literals(text: str) -> list[nodes.Node]:
    """Plain text in which `quoted` spans become inline literals (nothing else is interpreted)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: keep the text as it is
        return [nodes.Text(text)]
    out: list[nodes.Node] = []
    for i, part in enumerate(parts):
        if part:
            out.append(nodes.literal(part, part) if i % 2 else nodes.Text(part))
    return out


def _literal(value: Any) -> nodes.literal:
    text = json.dumps(value, ensure_ascii=False)
    return nodes.literal(text, text)


def _joined(items: list[list[nodes.Node]], sep: str) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for i, item in enumerate(items):
        if i:
            out.append(nodes.Text(sep))
        out.extend(item)
    return out


class SchemaRenderer:
    """Turns one JSON schema into sections of field tables, one per object shape."""

    def __init__(self, schema: dict[str, Any]):
        self.schema = schema
        self.defs: dict[str, Any] = schema.get("$defs", {})

    # -- types -------------------------------------------------------------

    def ref_link(self, ref: str) -> list[nodes.Node]:
        name = ref.rsplit("/", 1)[-1]
        if ref.startswith("#/$defs/") and name in self.defs:
            link = nodes.reference("", "", refid=ANCHOR_PREFIX + nodes.make_id(name))
            link += nodes.literal(name, name)
            return [link]
        return [nodes.literal(ref, ref)]

    def type_of(self, spec: Any, anchor: str | None = None) -> list[nodes.Node]:
        """A short description of what a value may be, with links to shapes described elsewhere."""
        if not isinstance(spec, dict):
            return [nodes.Text("any value")]
        if "$ref" in spec:
            return self.ref_link(str(spec["$ref"]))
        if "const" in spec:
            return [nodes.Text("always "), _literal(spec["const"])]
        if "enum" in spec:
            return [nodes.Text("one of ")] + _joined([[_literal(v)] for v in spec["enum"]], ", ")
        kinds = spec.get("type", "any value")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        parts: list[list[nodes.Node]] = []
        for kind in kinds:
            parts.append(self._one_type(str(kind), spec, anchor))
        out = _joined(parts, " or ")
        limits = self._limits(spec)
        if limits:
            out.append(nodes.Text(f" ({limits})"))
        return out

    def _one_type(self, kind: str, spec: dict[str, Any], anchor: str | None) -> list[nodes.Node]:
        if kind == "array" and "items" in spec:
            return [nodes.Text("array of ")] + self.type_of(spec["items"])
        if kind == "object" and "properties" in spec and anchor:
            link = nodes.reference("", "", refid=anchor)
            link += nodes.Text("object")
            return [link, nodes.Text(" (fields below)")]
        if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
            keys = spec.get("propertyNames", {})
            key_text: list[nodes.Node] = (self.type_of(keys) if keys else [nodes.Text("any name")])
            return ([nodes.Text("object mapping a key (")] + key_text + [nodes.Text(") to ")]
                    + self.type_of(spec["additionalProperties"]))
        return [nodes.Text(kind)]

    @staticmethod
    def _limits(spec: dict[str, Any]) -> str:
        words = []
        if "minimum" in spec:
            words.append(f"at least {spec['minimum']}")
        if spec.get("minLength") == 1:
            words.append("not empty")
        elif "minLength" in spec:
            words.append(f"at least {spec['minLength']} characters")
        if "pattern" in spec:
            words.append(f"matching {spec['pattern']}")
        if "minProperties" in spec:
            words.append(f"at least {spec['minProperties']} key(s)")
        return ", ".join(words)

    # -- sections ----------------------------------------------------------

    def sections(self) -> list[nodes.section]:
        out = [self.object_section("snapshot", "The whole file", self.schema)]
        for name, spec in self.defs.items():
            out.append(self.object_section(name, f"Definition $defs/{name}", spec))
        return out

    def object_section(self, name: str, where: str, spec: dict[str, Any]) -> nodes.section:
        anchor = ANCHOR_PREFIX + nodes.make_id(name)
        section = nodes.section(ids=[anchor])
        section += nodes.title("", "", nodes.literal(name, name))
        intro = nodes.paragraph()
        intro += nodes.Text(f"{where}: ")
        intro += [nodes.Text("an object")] if "properties" in spec else self.type_of(spec)
        intro += nodes.Text(".")
        if isinstance(spec.get("description"), str):
            intro += nodes.Text(" ")
            intro += _text_with_literals(spec["description"])
        section += intro
        properties = spec.get("properties")
        if isinstance(properties, dict):
            nested: list[nodes.section] = []
            section += self.field_table(name, spec, properties, nested)
            if spec.get("additionalProperties") is False:
                section += nodes.paragraph("", "No other fields are allowed.")
            for child in nested:
                section += child
        return section

    def field_table(self, owner: str, spec: dict[str, Any], properties: dict[str, Any],
                    nested: list[nodes.section]) -> nodes.table:
        required = set(spec.get("required", []))
        table = nodes.table(classes=["snapshot-schema"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (20, 30, 10, 40):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += self._row([[nodes.Text(h)] for h in ("field", "type", "required", "description")])
        body = nodes.tbody()
        group += body
        for field, field_spec in properties.items():
            anchor = None
            if isinstance(field_spec, dict) and isinstance(field_spec.get("properties"), dict):
                child_name = f"{owner}.{field}"
                anchor = ANCHOR_PREFIX + nodes.make_id(child_name)
                nested.append(self.object_section(child_name, f"The field {field} of {owner}", field_spec))
            description = field_spec.get("description", "") if isinstance(field_spec, dict) else ""
            body += self._row([
                [nodes.literal(field, field)],
                self.type_of(field_spec, anchor),
                [nodes.Text("yes" if field in required else "no")],
                _text_with_literals(description) if isinstance(description, str) else [],
            ])
        return table

    @staticmethod
    def _row(cells: list[list[nodes.Node]]) -> nodes.row:
        row = nodes.row()
        for content in cells:
            entry = nodes.entry()
            paragraph = nodes.paragraph()
            paragraph.extend(content)
            entry += paragraph
            row += entry
        return row


class SnapshotSchema(SphinxDirective):
    """Render the snapshot schema: where it ships, then one field table per object shape."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        try:
            path = schema_path()
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise self.error(f"snapshot-schema: cannot read the schema: {exc}") from None
        if not isinstance(schema, dict):
            raise self.error(f"snapshot-schema: {path} is not a JSON object; it should be the snapshot's "
                             "JSON Schema")
        self.env.note_dependency(str(path))

        package_root = Path(__import__("sphinx_kexport").__file__).resolve().parent.parent
        shown = path.relative_to(package_root).as_posix() if path.is_relative_to(package_root) else path.name
        lead = nodes.paragraph()
        lead += nodes.Text("The schema ships inside the package as ")
        lead += nodes.literal(shown, shown)
        lead += nodes.Text(" (")
        download = addnodes.download_reference(
            "", "", refdoc=self.env.docname, reftarget=self._relative_to_document(path), refexplicit=True)
        download += nodes.literal(path.name, path.name)
        lead += download
        title = schema.get("title")
        if isinstance(title, str):
            lead += nodes.Text(f"; title “{title}”")
        lead += nodes.Text(").")
        return [lead, *SchemaRenderer(schema).sections()]

    def _relative_to_document(self, path: Path) -> str:
        document_dir = Path(self.env.doc2path(self.env.docname)).parent
        return os.path.relpath(path, document_dir).replace(os.sep, "/")


def setup(app):
    app.add_directive("snapshot-schema", SnapshotSchema)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
