"""The ``export-support`` directive.

.. code-block:: rst

   .. export-support:: _data/export_support.json
      :packages: kornia.color, kornia.geometry
      :devices: cpu
      :reasons: on
      :compare: _data/export_support-0.8.json
      :worklist: 10

   .. export-support:: _data/torch-2.11.json _data/torch-2.13.json _data/torch-2.15.json

Several paths make one page across torch versions, one snapshot per version
(``model.versions``: their order is the torch version's, not the arguments').
The path is relative to the document, or to the source directory when it
starts with ``/``. Any problem with the file or the options is reported as
one error naming the file, the case, the field, what was expected and what
was found; the page then shows that error instead of a partial table, and
the build exits non-zero (``env_state.fail_build_on_errors``).
"""

from __future__ import annotations

import os
import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ...snapshot import DEVICES, Snapshot, SnapshotError, build, read_snapshot
from ...snapshot.torch_versions import torch_version
from ...snapshot.repro_checks import ReproChecks
from ...snapshot.worklist import rank_versions
from .. import gc_pause
from ..model.comparison import Comparison, load_comparison
from ..model.page_model import build_model
from ..model.version_history import History
from ..model.versions import order_versions
from ..sphinx_env import env_state
from .assembly import build_page
from .downloads import note_snapshot
from .repro_check import load_checks
from .worklist import DEFAULT_LINES

logger = logging.getLogger(__name__)


def names(argument: str | None) -> list[str]:
    """A comma- and/or space-separated list; order kept, repeats dropped."""
    found: list[str] = []
    for name in re.split(r"[,\s]+", argument or ""):
        if name and name not in found:
            found.append(name)
    return found


def _torch_label(snapshot: Snapshot, source: str) -> str:
    """A page of one snapshot needs no torch version; the worklist names it when the snapshot has one."""
    try:
        return torch_version(snapshot, source)
    except SnapshotError:
        return ""


class ExportSupportDirective(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    # Options are read as text and checked against the snapshot in
    # _selection, so a bad value gets the same one-line error as a bad file.
    option_spec = {
        "packages": directives.unchanged,
        "devices": directives.unchanged,
        "reasons": directives.unchanged,
        "compare": directives.unchanged,
        "worklist": directives.unchanged,
        "repro-check": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        with gc_pause.paused():  # thousands of short-lived objects; see gc_pause.py
            return self._run()

    def _run(self) -> list[nodes.Node]:
        history = None
        try:
            loaded = [self._read(argument) for argument in self._paths()]
            if len(loaded) > 1:  # one page across torch versions
                history = History.of(order_versions([(s, d, r) for s, d, r, _ in loaded]))
                newest = history.newest
                snapshot, data, relative = history.display, newest.data, newest.source
                absolute = next(a for s, _, _, a in loaded if s is newest.snapshot)
            else:
                snapshot, data, relative, absolute = loaded[0]
            packages, devices = self._selection(snapshot, relative)
            reasons = self._reasons_option(relative)
            old = self._compare_option(relative)
            worklist = self._worklist_option(relative)
            checks = self._repro_check_option(relative, history.newest.snapshot if history is not None else snapshot)
        except SnapshotError as exc:
            return self._fail(str(exc))
        config = self.config
        shape = dict(packages=packages, devices=devices, package_order=list(config.kexport_package_order),
                     section_titles=config.kexport_section_titles)
        model = build_model(snapshot, counted=history.in_newest if history is not None else None, **shape)
        older_models = []  # each older torch version's own model, for its reason index
        if history is not None and reasons:
            older_models = [(v.label, build_model(history.snapshot_of(v.label), id_cases=snapshot.cases,
                                                  tally=False, **shape)) for v in history.versions[:-1]]
        comparison = None
        if old is not None:
            comparison = Comparison.of(old, data, model)
        elif history is not None:  # "what changed" and the change markers: the two newest versions
            older = history.versions[-2]
            comparison = Comparison.of((older.data, older.source), data, model, label=older.title)
        # the downloads are the newest snapshot's (the file a deployer of today's torch wants), not the page's
        # union of every version's cases
        published = history.newest.snapshot if history is not None else snapshot
        downloads = note_snapshot(self.env, absolute, published) if config.kexport_downloads else None
        env_state.note_page(self.env, self.env.docname, relative, self.lineno)
        rankings = []
        if worklist:
            versions = ([(v.label, v.snapshot) for v in reversed(history.versions)] if history is not None
                        else [(_torch_label(snapshot, relative), snapshot)])
            rankings = rank_versions(versions)
        return [build_page(self, model, reasons=reasons, comparison=comparison, downloads=downloads,
                           history=history, older_models=older_models, worklist=(rankings, worklist),
                           checks=checks)]

    def _paths(self) -> list[str]:
        """The snapshot paths, separated by whitespace; one path with spaces in it still reads as one."""
        argument = self.arguments[0].strip()
        parts = argument.split()
        if len(parts) > 1 and os.path.isfile(self.env.relfn2path(argument, self.env.docname)[1]):
            return [argument]
        return list(dict.fromkeys(parts))

    def _read(self, argument: str) -> tuple[Snapshot, dict, str, str]:
        """(snapshot, its validated dict, the path as written, the absolute path)."""
        relative, absolute = self.env.relfn2path(argument, self.env.docname)
        # Before reading, so that a missing file is looked for again next build.
        self.env.note_dependency(absolute)
        data, _ = read_snapshot(absolute, relative)
        return build(data, relative), data, relative, absolute

    def _reasons_option(self, source: str) -> bool:
        """``:reasons: on|off`` (default on)."""
        if "reasons" not in self.options:
            return True
        value = (self.options["reasons"] or "").strip().lower()
        if value in ("on", "yes", "true"):
            return True
        if value in ("off", "no", "false"):
            return False
        raise SnapshotError(f"{source}: option :reasons:: expected on or off, found {value or 'nothing'!r}.")

    def _worklist_option(self, source: str) -> int:
        """``:worklist: on|off|N``: the number of library lines shown per torch version (default off; on: 10)."""
        if "worklist" not in self.options:
            return 0
        value = (self.options["worklist"] or "").strip().lower()
        if value in ("on", "yes", "true", ""):
            return DEFAULT_LINES
        if value in ("off", "no", "false"):
            return 0
        if value.isdigit() and int(value) > 0:
            return int(value)
        raise SnapshotError(f"{source}: option :worklist:: expected on, off or a number of lines (1 or more), "
                            f"found {value!r}.")

    def _repro_check_option(self, source: str, snapshot: Snapshot) -> ReproChecks | None:
        """``:repro-check: PATH``: what ``probe repro --check --write PATH`` found, checked against the snapshot."""
        if "repro-check" not in self.options:
            return None
        argument = (self.options["repro-check"] or "").strip()
        if not argument:
            raise SnapshotError(f"{source}: option :repro-check:: expected the path of the file `python -m "
                                "sphinx_kexport.probe repro --check SNAPSHOT --write FILE` wrote, found nothing.")
        relative, absolute = self.env.relfn2path(argument, self.env.docname)
        self.env.note_dependency(absolute)
        return load_checks(absolute, relative, snapshot)

    def _compare_option(self, source: str) -> tuple[dict, str] | None:
        """``:compare: PATH``: the older snapshot, read and checked like the main one."""
        if "compare" not in self.options:
            return None
        argument = (self.options["compare"] or "").strip()
        if not argument:
            raise SnapshotError(f"{source}: option :compare:: expected the path of an older snapshot, "
                                "found nothing.")
        relative, absolute = self.env.relfn2path(argument, self.env.docname)
        self.env.note_dependency(absolute)
        return load_comparison(absolute, relative), relative

    def _selection(self, snapshot: Snapshot, source: str) -> tuple[list[str] | None, list[str] | None]:
        """Check :packages: and :devices: against the snapshot."""
        packages = self._names_option("packages", source)
        if packages is not None:
            known = list(dict.fromkeys(case.package for case in snapshot.cases))
            for name in packages:
                if name not in known:
                    raise SnapshotError(
                        f"{source}: option :packages:: expected packages the snapshot has "
                        f"({', '.join(known) or 'none'}), found unknown package {name!r}.")
        devices = self._names_option("devices", source)
        if devices is not None:
            for name in devices:
                if name not in DEVICES:
                    raise SnapshotError(
                        f"{source}: option :devices:: expected a subset of {', '.join(DEVICES)}, "
                        f"found unknown device {name!r}.")
                if name not in snapshot.devices:
                    raise SnapshotError(
                        f"{source}: option :devices:: expected devices the snapshot was probed on "
                        f"({', '.join(snapshot.devices)}), found {name!r}.")
        return packages, devices

    def _names_option(self, option: str, source: str) -> list[str] | None:
        if option not in self.options:
            return None
        found = names(self.options[option])
        if not found:
            raise SnapshotError(f"{source}: option :{option}:: expected at least one name, found nothing.")
        return found

    def _fail(self, message: str) -> list[nodes.Node]:
        """One error line for the log; a visible notice instead of half a page."""
        logger.error(message, location=self.get_location())
        env_state.note_failure(self.env, self.env.docname, message)
        notice = nodes.error(classes=["kexport-error"], support_smartquotes=False)
        notice += nodes.paragraph("", "The export-support page could not be built: " + message)
        return [notice]
