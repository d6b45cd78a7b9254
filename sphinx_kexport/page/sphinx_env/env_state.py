"""What the build environment remembers about export-support pages.

Five plain dicts on the environment, each keyed by document name:

* ``kexport_pages``: the snapshots each document renders (source-relative
  path and directive line);
* ``kexport_failures``: the error that stopped a document's page;
* ``kexport_downloads``: the snapshot files each document publishes
  (``parts.downloads``);
* ``kexport_badge_rows``: each document's table rows, by ``ref``
  (``parts.badges``);
* ``kexport_fix_pages``: the documents holding the fix classes' reference
  (``parts.fix_reference``), which a red cell's class links to.

One purge (``env-purge-doc``: a re-read document's entries are dropped) and
one merge (``env-merge-info``: a parallel reader's documents are taken over)
serve them all, which is what makes the extension ``parallel_read_safe``.
"""

from __future__ import annotations

from typing import Any, Iterable

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .config import CONFIG_ERRORS_ATTR

PAGES = "kexport_pages"
FAILURES = "kexport_failures"
DOWNLOADS = "kexport_downloads"
BADGE_ROWS = "kexport_badge_rows"
FIX_PAGES = "kexport_fix_pages"
DOC_STORES = (PAGES, FAILURES, DOWNLOADS, BADGE_ROWS, FIX_PAGES)
READ_NOW = "_kexport_read_now"  # an attribute of the app: the documents read in this build


def doc_store(env: BuildEnvironment, name: str) -> dict[str, Any]:
    """One of ``DOC_STORES``: {docname: what that document contributed}."""
    if not hasattr(env, name):
        setattr(env, name, {})
    return getattr(env, name)


def pages(env: BuildEnvironment) -> dict[str, list[dict]]:
    return doc_store(env, PAGES)


def failures(env: BuildEnvironment) -> dict[str, str]:
    return doc_store(env, FAILURES)


def fix_page(env: BuildEnvironment) -> str | None:
    """The document that holds the fix classes' reference (the first by name if several do), or None."""
    return min(doc_store(env, FIX_PAGES), default=None)


def read_now(app: Sphinx) -> set[str]:
    return getattr(app, READ_NOW, set())


def note_page(env: BuildEnvironment, docname: str, snapshot: str, line: int) -> None:
    pages(env).setdefault(docname, []).append({"snapshot": snapshot, "line": line})


def note_failure(env: BuildEnvironment, docname: str, message: str) -> None:
    failures(env).setdefault(docname, message)


def note_fix_page(env: BuildEnvironment, docname: str) -> None:
    doc_store(env, FIX_PAGES)[docname] = True


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    for name in DOC_STORES:
        doc_store(env, name).pop(docname, None)


def merge_info(app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment) -> None:
    docnames = set(docnames)
    for name in DOC_STORES:
        target = doc_store(env, name)
        for docname, value in doc_store(other, name).items():
            if docname in docnames:
                target[docname] = value


def reread_failed_docs(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                       removed: set[str]) -> list[str]:
    """A page that failed is read again on every build, so the error keeps being
    reported (and the build keeps failing) until the input is fixed."""
    return sorted(d for d in failures(env) if d not in removed and d not in added and d not in changed)


def remember_read_docs(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    setattr(app, READ_NOW, set(docnames))
    for forget in _FORGET_ON_READ:
        forget(app)


# Features that derive data from the stores at write time register how to drop it when a new read begins.
_FORGET_ON_READ: list[Any] = []


def forget_on_read(callback: Any) -> Any:
    _FORGET_ON_READ.append(callback)
    return callback


def rewrite_pages_after_other_changes(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Operator links are resolved at write time against the whole project; when
    another document was re-read (an API page renamed a function, say), the
    export-support pages are written again so their links follow."""
    holders = set(pages(env))
    if read_now(app) - holders:
        return sorted(holders - read_now(app))
    return []


def fail_build_on_errors(app: Sphinx, exception: Exception | None) -> None:
    """Bad input or configuration was reported as an error; make sure
    sphinx-build exits non-zero even without -W."""
    if exception is None and (failures(app.env) or getattr(app, CONFIG_ERRORS_ATTR, None)):
        app.statuscode = 1


def setup_env_state(app: Sphinx) -> None:
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    app.connect("env-get-outdated", reread_failed_docs)
    app.connect("env-before-read-docs", remember_read_docs)
    app.connect("env-get-updated", rewrite_pages_after_other_changes)
    app.connect("build-finished", fail_build_on_errors)
