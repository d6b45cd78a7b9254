"""axe-core, the accessibility engine, run inside a page loaded in headless Chromium.

axe-core comes from the npm registry at the exact version scripts/setup-env.sh installs into .node/
(``KEXPORT_NODE_MODULES`` names another folder holding node_modules/, as for scripts/lint-workflows.cjs);
nothing is downloaded here. ``axe_violations(driver)`` injects it into the page the driver shows and runs
every rule axe enables by default (WCAG 2.0-2.2 A and AA, and axe's best practices) on our markup only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE = Path(os.environ.get("KEXPORT_NODE_MODULES") or REPO / ".node")
AXE = NODE / "node_modules" / "axe-core"

# What our extension writes into a page: the directive's whole output is one `.kexport` element (cards,
# legend, summary, reasons, worklist, controls, tables), and an API entry's badges sit in
# `.kexport-badge-line`. The theme's header, sidebar, search and footer are the theme's to fix (axe finds
# some: alabaster's footer contrast, pydata-sphinx-theme's search button name), so they are left out.
# A theme's own element inside our page still counts (furo's and sphinx-rtd-theme's table wrappers, the
# theme's colour for our code literals): the reader meets it in our page, and our markup or stylesheet
# can fix it.
OURS = (".kexport", ".kexport-badge-line")
FAILING = ("serious", "critical")


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    target: str
    help: str
    url: str

    def __str__(self) -> str:
        return f"{self.rule} ({self.impact}) at {self.target}: {self.help} [{self.url}]"


def axe_version() -> str:
    if not (AXE / "axe.min.js").exists():
        pytest.fail(f"{AXE} is missing: `bash scripts/setup-env.sh test` installs axe-core from the npm "
                    "registry into .node/ (or set KEXPORT_NODE_MODULES to a folder that has it)")
    return json.loads((AXE / "package.json").read_text(encoding="utf-8"))["version"]


# Runs axe on the given selectors that the page has; answers [rules that ran, [violation per node]].
_RUN = """
const [selectors, done] = [arguments[0], arguments[arguments.length - 1]];
const include = selectors.filter(s => document.querySelector(s));
if (!include.length) { done('none of ' + selectors.join(', ') + ' is on the page'); return; }
axe.run({include: include}, {resultTypes: ['violations']}).then(r => done([
  [...r.passes, ...r.violations, ...r.incomplete, ...r.inapplicable].map(x => x.id),
  r.violations.flatMap(v => v.nodes.map(n => [v.id, n.impact || v.impact, n.target.join(' '), v.help, v.helpUrl]))
]), e => done('axe failed: ' + e));
"""


def run_axe(driver, selectors: tuple[str, ...] = OURS) -> tuple[list[str], list[Violation]]:
    """(the ids of the rules axe ran, one Violation per offending element) on ``selectors`` of the page
    ``driver`` shows. axe is injected once per loaded page."""
    axe_version()
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script((AXE / "axe.min.js").read_text(encoding="utf-8"))
    driver.set_script_timeout(60)
    answer = driver.execute_async_script(_RUN, list(selectors))
    if isinstance(answer, str):
        raise AssertionError(answer)
    rules, found = answer
    return rules, [Violation(*v) for v in found]


def serious(violations: list[Violation]) -> list[Violation]:
    return [v for v in violations if v.impact in FAILING]


def describe(violations: list[Violation]) -> str:
    return "\n".join(map(str, violations))
