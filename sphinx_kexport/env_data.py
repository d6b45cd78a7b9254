"""What the build environment remembers about export-support pages.

Two plain dicts on the environment, keyed by document name:

* ``kexport_pages``: the snapshots each document renders (source-relative
  path and directive line);
* ``kexport_failures``: the error that stopped a document's page.

Both are dropped when a document is re-read (``env-purge-doc``) and merged
back from parallel readers (``env-merge-info``), which is what makes the
extension ``parallel_read_safe``.
"""

from __future__ import annotations

from typing import Iterable

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .config import CONFIG_ERRORS_ATTR

PAGES = "kexport_pages"
FAILURES = "kexport_failures"
_READ_NOW = "_kexport_read_now"


def pages(env: BuildEnvironment) -> dict[str, list[dict]]:
    if not hasattr(env, PAGES):
        setattr(env, PAGES, {})
    return getattr(env, PAGES)


def failures(env: BuildEnvironment) -> dict[str, str]:
    if not hasattr(env, FAILURES):
        setattr(env, FAILURES, {})
    return getattr(env, FAILURES)


def note_page(env: BuildEnvironment, docname: str, snapshot: str, line: int) -> None:
    pages(env).setdefault(docname, []).append({"snapshot": snapshot, "line": line})


def note_failure(env: BuildEnvironment, docname: str, message: str) -> None:
    failures(env).setdefault(docname, message)


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    pages(env).pop(docname, None)
    failures(env).pop(docname, None)


def merge_info(app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment) -> None:
    docnames = set(docnames)
    for source, target in ((pages(other), pages(env)), (failures(other), failures(env))):
        for docname, value in source.items():
            if docname in docnames:
                target[docname] = value


def reread_failed_docs(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                       removed: set[str]) -> list[str]:
    """A page that failed is read again on every build, so the error keeps being
    reported (and the build keeps failing) until the input is fixed."""
    return sorted(d for d in failures(env) if d not in removed and d not in added and d not in changed)


def remember_read_docs(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    setattr(app, _READ_NOW, set(docnames))


def rewrite_pages_after_other_changes(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Operator links are resolved at write time against the whole project; when
    another document was re-read (an API page renamed a function, say), the
    export-support pages are written again so their links follow."""
    read_now = getattr(app, _READ_NOW, set())
    holders = set(pages(env))
    if read_now - holders:
        return sorted(holders - read_now)
    return []


def fail_build_on_errors(app: Sphinx, exception: Exception | None) -> None:
    """Bad input or configuration was reported as an error; make sure
    sphinx-build exits non-zero even without -W."""
    if exception is None and (failures(app.env) or getattr(app, CONFIG_ERRORS_ATTR, None)):
        app.statuscode = 1


def setup_env_data(app: Sphinx) -> None:
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    app.connect("env-get-outdated", reread_failed_docs)
    app.connect("env-before-read-docs", remember_read_docs)
    app.connect("env-get-updated", rewrite_pages_after_other_changes)
    app.connect("build-finished", fail_build_on_errors)
