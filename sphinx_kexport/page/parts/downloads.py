"""The data, handed over: the snapshot published next to the page.

With ``kexport_downloads = True`` (the default) the HTML builders (``html``,
``dirhtml``, ``singlehtml``) write, for every snapshot a page renders,

* ``_kexport/<stem>-<hash>.json``: the file byte for byte, as committed
  (Kornia's format stays Kornia's format);
* ``_kexport/<stem>-<hash>.csv``: one row per case, device and path
  (``snapshot.csv_table.snapshot_csv``, with spreadsheet formulas defused),

and the page links to both, relative to the page, so the links work in
every HTML layout. ``<hash>`` is taken from the file's bytes: a changed
snapshot gets new names (no stale browser cache), and two pages of the same
snapshot share one copy.

Which documents use which snapshot is kept in the environment, dropped when
a document is re-read and merged back from parallel readers, so the files
are complete after ``-j N`` and incremental builds. They are written when the
HTML builder collects its extra pages (singlehtml: when the build finishes).
Other builders (text, LaTeX, man,
texinfo, epub) get no links and no files.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ...snapshot import Snapshot, SnapshotError, load_snapshot
from ...snapshot.csv_table import snapshot_csv
from ..model.page_model import slugify
from ..nodes import kexport_downloads
from ..sphinx_env.env_state import DOWNLOADS, doc_store

logger = logging.getLogger(__name__)

OUT_DIR = "_kexport"
BUILDERS = ("html", "dirhtml", "singlehtml")  # epub packs only known media types; others have no web
# file name -> CSV text made while reading, in this process (saves reading the snapshot again; a
# string, not the snapshot's objects, so it costs the garbage collector nothing for the rest of the build)
_CSV: dict[str, str] = {}


def store(env: BuildEnvironment) -> dict[str, list[dict[str, str]]]:
    return doc_store(env, DOWNLOADS)


def file_name(absolute: str | os.PathLike, raw: bytes) -> str:
    stem = slugify(Path(absolute).stem) or "snapshot"
    return f"{stem}-{hashlib.sha1(raw).hexdigest()[:12]}"


def note_snapshot(env: BuildEnvironment, absolute: str, snapshot: Snapshot) -> dict[str, Any]:
    """Remember that the document being read publishes this snapshot; returns the node's data."""
    raw = Path(absolute).read_bytes()
    name = file_name(absolute, raw)
    entries = store(env).setdefault(env.docname, [])
    source = os.path.relpath(absolute, env.srcdir)
    if not any(e["name"] == name for e in entries):
        entries.append({"name": name, "source": Path(source).as_posix()})
    builder = getattr(env, "_builder_cls", None)
    if name not in _CSV and getattr(builder, "name", "") in BUILDERS:
        _CSV[name] = snapshot_csv(snapshot)
    return {"name": name, "bytes": len(raw), "cases": len(snapshot.cases)}


def build_node(data: dict[str, Any], source: str) -> kexport_downloads:
    node = kexport_downloads()
    node["name"] = data["name"]
    node["bytes"] = data["bytes"]
    node["cases"] = data["cases"]
    node["source"] = source
    return node


# --------------------------------------------------------------------------
# writing the files and resolving the links


def publishes(app: Sphinx) -> bool:
    return bool(app.config.kexport_downloads) and app.builder.name in BUILDERS


def resolve_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved: each download node gets URIs relative to the written page."""
    found = list(doctree.findall(kexport_downloads))
    if not found:
        return
    if not publishes(app):
        for node in found:
            node.parent.remove(node)
        return
    page = os.path.relpath(app.builder.get_outfilename(docname), app.outdir).replace(os.sep, "/")
    here = posixpath.dirname(page)
    for node in found:
        for suffix in ("json", "csv"):
            node[f"{suffix}_uri"] = posixpath.relpath(f"{OUT_DIR}/{node['name']}.{suffix}", here or ".")


def write_files(app: Sphinx) -> list:
    """html-collect-pages: write each published snapshot's JSON and CSV once."""
    if not publishes(app):
        return []
    out = Path(app.outdir, OUT_DIR)
    done: set[str] = set()
    for docname in sorted(store(app.env)):
        for entry in store(app.env)[docname]:
            name = entry["name"]
            if name in done:
                continue
            done.add(name)
            json_path, csv_path = out / f"{name}.json", out / f"{name}.csv"
            if json_path.is_file() and csv_path.is_file():
                continue  # the name is the content's hash: an existing file is the right one
            source = Path(app.srcdir, entry["source"])
            try:
                raw = source.read_bytes()
                text = _CSV.pop(name, None)
                if text is None:  # read by a parallel reader, or in an earlier build
                    text = snapshot_csv(load_snapshot(source, entry["source"]))
            except (OSError, SnapshotError) as exc:  # changed or removed since it was read
                logger.warning("export-support: cannot publish %s (%s)", entry["source"], exc,
                               type="kexport", subtype="downloads")
                continue
            out.mkdir(parents=True, exist_ok=True)
            json_path.write_bytes(raw)
            csv_path.write_text(text, encoding="utf-8", newline="")
    return []


def write_files_at_end(app: Sphinx, exception: Exception | None) -> None:
    if exception is None:
        write_files(app)


def setup_downloads(app: Sphinx) -> None:
    app.connect("html-collect-pages", write_files)
    # singlehtml collects no extra pages: write at the end instead (already written files are kept).
    app.connect("build-finished", write_files_at_end)
