"""Writes example_docs/_inventories/torch.inv: the few entries of torch's documentation the fix-class reference
page (reference/fix-classes.rst) links to, as an intersphinx inventory.

    python example_docs/tools/torch_inventory.py

The docs build works offline (as the rest of this site): intersphinx reads this local file instead of
downloading torch's whole inventory. The addresses are those of docs.pytorch.org's stable docs; add an entry
here when a class in sphinx_kexport/snapshot/fix_classes.py names a new one, and run this again.
"""

from __future__ import annotations

import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "_inventories" / "torch.inv"

# (name, domain:type, address relative to the docs root, title or "-" for the name)
ENTRIES = [
    ("torch._assert_async", "py:function", "generated/torch._assert_async.html", "-"),
    ("torch._check", "py:function", "generated/torch._check.html", "-"),
    ("torch.cond", "py:function", "generated/torch.cond.html", "-"),
    ("torch.where", "py:function", "generated/torch.where.html", "-"),
    ("torch.stack", "py:function", "generated/torch.stack.html", "-"),
    ("torch.onnx.export", "py:function", "onnx.html#torch.onnx.export", "-"),
    ("torch.testing.assert_close", "py:function", "testing.html#torch.testing.assert_close", "-"),
    ("torch.export.Dim", "py:class", "export/api_reference.html#torch.export.dynamic_shapes.Dim", "-"),
    ("torch.Tensor.clone", "py:method", "generated/torch.Tensor.clone.html", "-"),
    ("torch.Tensor.to", "py:method", "generated/torch.Tensor.to.html", "-"),
    ("torch.Tensor.index_add", "py:method", "generated/torch.Tensor.index_add.html", "-"),
    ("sparse", "std:doc", "sparse.html", "torch.sparse"),
    ("compile/programming_model.common_graph_breaks", "std:doc",
     "compile/programming_model.common_graph_breaks.html", "Common Graph Breaks"),
]


def inventory() -> bytes:
    header = ("# Sphinx inventory version 2\n# Project: PyTorch\n# Version: stable\n"
              "# The remainder of this file is compressed using zlib.\n").encode()
    lines = "".join(f"{name} {kind} 1 {uri} {title}\n" for name, kind, uri, title in sorted(ENTRIES))
    return header + zlib.compress(lines.encode("utf-8"), 9)


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(inventory())
    print(f"wrote {OUT} ({len(ENTRIES)} entries)")
