"""The example project: kornia's survey builds -W clean, every row links, and the page fits the theme."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from browser_support import choose, chromium, chromium_available, click, console_errors, fetch_texts, opened, \
    serve, visible_rows, wait_for
from sphinx_kexport.page.model.comparison import Comparison, load_comparison
from sphinx_kexport.page.model.page_model import build_model
from sphinx_kexport.page.model.reason_groups import build_index
from sphinx_kexport.snapshot.repro import fill_template, repro_templates
from sphinx_kexport.snapshot import build, normalise, read_json

EXAMPLE = Path(__file__).resolve().parents[2] / "example_docs"
SNAPSHOT = EXAMPLE / "_data" / "export_support.json"
COMPARED = EXAMPLE / "_data" / "kornia-published-sample.json"  # the page's :compare:

pytest.importorskip("kornia")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("example") / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(EXAMPLE), str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.strip() == ""
    return out


@functools.lru_cache(maxsize=2)
def parsed(built: Path, page: str) -> BeautifulSoup:
    """A built page, parsed once while the tests that read it run one after another: the survey pages are
    megabytes, and several tests read them. The tests only read the tree (select, get_text), never change it.
    Two at most are kept: a parsed survey page holds hundreds of megabytes."""
    return BeautifulSoup((built / page).read_text(encoding="utf-8"), "lxml")


def test_every_probed_configuration_is_a_row_and_links_to_its_api_entry(built):
    snapshot = json.loads((EXAMPLE / "_data" / "export_support.json").read_text())
    probed = [c for c in snapshot["cases"]
              if any(r["status"] != "n/a" for paths in c["results"].values() for r in paths.values())]
    soup = parsed(built, "export-support.html")
    rows = soup.select("table.kx-t tbody tr")
    assert len(rows) == len(probed) >= 1000  # issue 11: the survey at Kornia's scale
    linked = [r for r in rows if r.select_one("td a.reference.internal")]
    assert len(linked) >= 0.9 * len(rows), [r["id"] for r in rows if not r.select_one("td a.reference.internal")][:20]
    # The links land on real autodoc entries.
    href = linked[0].select_one("td a.reference.internal")["href"]
    page, anchor = href.split("#")
    target = parsed(built, page)
    assert target.find(id=anchor) is not None


def test_every_supported_cell_says_whether_it_holds_at_any_batch_size(built):
    """Issue 12: the survey was probed with the dynamic-batch pass, and the page shows its answer per cell."""
    snapshot = json.loads((EXAMPLE / "_data" / "export_support.json").read_text())
    supported = [r for c in snapshot["cases"] for paths in c["results"].values() for r in paths.values()
                 if r["status"] in ("ok", "ok-breaks", "ok-unverified")]
    # nothing was probed without the pass; a record whose worker ran past the limit in the speed pass before it
    # (SOLD2_detector[doc]'s compile) has none, from a probe that did not yet record the pass as not run
    lost = [r for r in supported if "dynamic" not in r]
    assert supported and all("during the speed pass" in r["speed"]["note"] for r in lost) and len(lost) <= 1
    checked = [r for r in supported if r.get("dynamic", {}).get("status") in ("ok", "static", "fail")]
    soup = parsed(built, "export-support.html")
    marks = soup.select("table.kx-t tbody kx-yo, table.kx-t tbody kx-ys, table.kx-t tbody kx-yf")
    # a case with no tensor input (q.inv(), create_meshgrid(4, 5)) has no batch to make dynamic: n/a
    batched = [r for c in snapshot["cases"] if c["inputs"] for paths in c["results"].values() for r in paths.values()
               if r["status"] in ("ok", "ok-breaks", "ok-unverified")]
    assert len(marks) == len(checked) > 0.8 * len(batched)
    assert soup.select(".kexport-legend-row .kx-batch--static")  # the legend explains the mark


# The documentation site: every page the project promises, reachable from the front page's navigation.
SITE_PAGES = {
    "reference/directive.html": ["export-support", ":packages:", ":devices:", ":reasons:", ":compare:"],
    "reference/configuration.html": ["kexport_api_badges", "kexport_downloads", "kexport_inventories"],
    "reference/browser.html": ["Search", "URL"],
    "get-started.html": ["conf.py", "export-support", "Commit the snapshot"],
    "how-to/write-cases.html": ["case(", "CASES"],
    "how-to/discover.html": ["cases_from_docstrings", "cases_from_tests"],
    "how-to/refresh.html": ["--only", "run_survey", "pyproject.toml"],
    "how-to/torch-versions.html": ["torch-venv.sh"],
    "reference/cli.html": ["--shard", "merge", "diff", "Exit status"],
    "reference/python-api.html": ["ProbeConfig", "SurveyStopped", "ProbeError"],
    "explanation/measurement.html": ["eager"],
    "explanation/dynamic-batch.html": ["batch"],
    "explanation/workers.html": ["--timeout", "resume"],
    "explanation/discovery.html": ["cache"],
    "explanation/reuse.html": ["code"],
    "develop/architecture.html": ["test_design.py"],
    "develop/testing.html": ["pytest"],
    "develop/changelog.html": ["Changelog"],
    "how-to/ci.html": ["shard", "GPU", "diff"],
    "reference/snapshot-format.html": ["graph_breaks", "environments", "probed_at"],
    "explanation/reuse-keys.html": ["probe-code", "suite-config", "measured by other probe code"],
    "develop/benchmarks.html": ["bench_page.py", "bench_probe.py"],
    "showcase/kornia.html": ["kornia"],
    "how-to/another-library.html": ["cases_from_docstrings", "MONAI", "torchmetrics", "discover"],
    "export-support.html": ["ONNX"],
    "torch-versions.html": ["torch 2.9.1", "2.13.0", "2.15.0", "draw_rectangle"],
    "torch-versions-whole.html": ["torch 2.9.1", "2.13.0", "2.15.0", "binary_focal_loss_with_logits"],
}


@pytest.mark.parametrize("page", sorted(SITE_PAGES))
def test_the_docs_site_holds_each_page_and_links_it(built, page):
    text = parsed(built, page).get_text(" ")
    missing = [word for word in SITE_PAGES[page] if word not in text]
    assert not missing, f"{page} does not mention {missing}"
    assert page in toctree_reachable(built)


@functools.lru_cache(maxsize=None)
def toctree_reachable(built: Path) -> frozenset[str]:
    """The pages the front page's toctrees lead to, following each page's own toctrees. Read once per built
    site (it parses every page, the two large survey pages too), not once per test that asks."""
    import posixpath

    seen, todo = {"index.html"}, ["index.html"]
    while todo:
        page = todo.pop()
        soup = BeautifulSoup((built / page).read_text(encoding="utf-8"), "lxml")
        for link in soup.select("div.toctree-wrapper a.reference.internal[href]"):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), link["href"].split("#")[0]))
            if target.endswith(".html") and target not in seen:
                seen.add(target)
                todo.append(target)
    return frozenset(seen)


def test_every_page_of_the_site_is_reachable_from_the_front_page(built):
    pages = {p.relative_to(built).as_posix() for p in built.rglob("*.html") if not p.relative_to(built).parts[0]
             .startswith("_")} - {"genindex.html", "search.html", "py-modindex.html"}
    assert pages and not sorted(pages - toctree_reachable(built))


SAMPLES = sorted((EXAMPLE / "_data" / "versions").glob("kornia-sample-torch-*.json"),
                 key=lambda path: tuple(int(part) for part in path.stem.rsplit("-", 1)[1].split(".")))
WHOLE = [EXAMPLE / "_data" / "versions" / f"kornia-torch-{version}.json" for version in ("2.9.1", "2.13.0", "2.15.0")]
VERSION_PAGES = {  # page: (its snapshots, oldest first; their torch versions; the fewest cells marked)
    "torch-versions.html": (SAMPLES, ["2.9.1", "2.13.0", "2.15.0"], 2),  # draw_rectangle[filled], since 2.13.0
    "torch-versions-whole.html": (WHOLE, ["2.9.1", "2.13.0", "2.15.0"], 40),  # 2.9.1 -> 2.13.0: 52 fixed, 2 regressed
}


@pytest.mark.parametrize("page", sorted(VERSION_PAGES))
def test_a_versions_page_marks_every_cell_as_its_snapshots_say(built, page):
    """Issue 20: the sample and the whole survey, each across torch 2.9.1, 2.13.0 and 2.15.0; each cell's
    words follow version_mark applied to that cell's statuses in the probe's snapshots (oldest first)."""
    from sphinx_kexport.page.model.version_marks import version_mark
    from sphinx_kexport.snapshot.vocabulary import PATHS

    paths, expected, fewest = VERSION_PAGES[page]
    snapshots = [read_json(path) for path in paths]
    versions = [s["environments"]["cpu"]["torch"].split("+")[0] for s in snapshots]
    assert versions == expected
    soup = parsed(built, page)
    # a row names its case as the operator's code and the case's variant after it, as the snapshot
    # spells them (``gaussian_blur2d`` ``live sigma, batch=2``), in its package's table (two packages
    # may both have a ``Normalize`` ``doc``)
    rows = {(table["data-p"], tr.select_one("td code").get_text(),
             "".join(v.get_text() for v in tr.select("td kx-v"))): tr
            for table in soup.select("table.kx-t") for tr in table.select("tbody tr")}
    by_name = [{c["name"]: c for c in s["cases"]} for s in snapshots]
    assert all(set(cases) == set(by_name[0]) for cases in by_name)  # the same cases at each version
    marked = 0
    for name, newest in by_name[-1].items():
        statuses = {path: [cases[name]["results"]["cpu"][path]["status"] for cases in by_name] for path in PATHS}
        if all(s == "n/a" for path in PATHS for s in statuses[path]):
            continue  # skipped or failed eagerly everywhere: not a row
        row = rows.pop((newest["package"].replace(".", "-"), newest["operator"], newest["variant"]))
        for column, path in enumerate(PATHS, start=1):
            want = version_mark(statuses[path], versions).words
            mark = row.select("td")[column].select_one("small.kx-vm")
            assert (mark.get_text() if mark else "") == want, (name, path, statuses[path])
            marked += bool(want)
    assert not rows  # every row is a case of the snapshots
    assert marked >= fewest


def test_the_snapshot_format_page_is_generated_from_the_schema(built):
    from sphinx_kexport.snapshot import load_schema

    text = BeautifulSoup((built / "reference" / "snapshot-format.html").read_text(encoding="utf-8"), "lxml").get_text(" ")
    schema = load_schema()
    fields = set(schema["properties"]) | {f for d in schema["$defs"].values() for f in d.get("properties", {})}
    assert fields and not [f for f in sorted(fields) if f not in text]


def test_the_reference_names_every_flag_public_name_and_config_field(built):
    """A flag, a public name or a ProbeConfig field the code has and the generated reference pages do not
    fails here: every subcommand is in the CLI reference's list of commands with its summary, every flag of every
    subcommand's --help is an option entry of the CLI reference, with its help text, and every name of sphinx_kexport.probe.__all__ and every ProbeConfig field an entry of the API
    reference."""
    import argparse
    import dataclasses
    import posixpath
    import re

    import sphinx_kexport.probe as probe
    from sphinx.util.inventory import InventoryFile
    from sphinx_kexport.probe.cli.main import parsers

    with (built / "objects.inv").open("rb") as handle:
        inventory = InventoryFile.load(handle, "", posixpath.join)
    options = inventory["std:cmdoption"]
    objects = {name: entry for kind, entries in inventory.items() if kind.startswith("py:")
               for name, entry in entries.items()}
    cli_page = " ".join(BeautifulSoup((built / "reference" / "cli.html").read_text(encoding="utf-8"), "lxml")
                        .get_text(" ").split())
    missing = []
    commands = parsers()  # every subcommand the parser has: a new one is checked without a change here
    assert {"", "merge", "diff", "fix-report", "repro", "discover", "worklist"} <= set(commands)
    summaries = {listed.dest: listed.help for action in commands[""]._actions
                 if isinstance(action, argparse._SubParsersAction) for listed in action._choices_actions}
    for command in commands:
        helped = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", *command.split(), "--help"],
                                capture_output=True, text=True, timeout=120)
        program = "python--m-sphinx_kexport.probe" + (f"-{command}" if command else "")
        # the listing, not the description's mentions nor the refresh's list of commands
        options_part = helped.stdout.split("options:", 1)[1].split("\ncommands:", 1)[0]
        flags = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]+)", options_part, re.M)) - {"--help"}
        assert flags, command
        helps = {flag: action.help for action in commands[command]._actions for flag in action.option_strings}
        for flag in sorted(flags):
            entry = options.get(f"{program}.{flag}")
            if entry is None or not entry.uri.startswith("reference/cli.html#"):
                missing.append(f"{command or 'probe'} {flag}")
            elif helps[flag] and " ".join(helps[flag].split()) not in cli_page:
                missing.append(f"{command or 'probe'} {flag}'s help")
        if command and " ".join(summaries[command].split()) not in cli_page:
            missing.append(f"{command} in the list of commands")
    api = {name: entry.uri for name, entry in objects.items()}
    missing += [name for name in probe.__all__
                if not api.get(f"sphinx_kexport.probe.{name}", "").startswith("reference/python-api.html#")]
    missing += [f"ProbeConfig.{f.name}" for f in dataclasses.fields(probe.ProbeConfig)
                if not api.get(f"sphinx_kexport.probe.ProbeConfig.{f.name}", "").startswith("reference/python-api.html#")]
    assert not missing, "the docs lack: " + ", ".join(missing)


def autodoc_notes(rst: str) -> tuple[int, list[str]]:
    """(how many ``.. auto*::`` directives, "line N: text" for every line of prose in one's body). A directive
    may carry its options (``:members:``), the field list right after its line; any other indented line under it
    is a note beside the docstring."""
    import re

    from sphinx.ext import autodoc

    options = {name for documenter in vars(autodoc).values()
               if isinstance(documenter, type) and issubclass(documenter, autodoc.Documenter)
               for name in documenter.option_spec}
    lines = rst.splitlines()
    directives, notes = 0, []
    for number, line in enumerate(lines):
        match = re.match(r"( *)\.\. auto\w+::", line)
        if not match:
            continue
        directives += 1
        depth = len(match.group(1))
        body = number + 1
        while body < len(lines) and (option := re.match(r"( +):([\w-]+):(?:\s|$)", lines[body])) \
                and len(option.group(1)) > depth and option.group(2) in options:
            body += 1
        while body < len(lines) and (not lines[body].strip() or len(lines[body]) - len(lines[body].lstrip()) > depth):
            if lines[body].strip():
                notes.append(f"line {body + 1}: {lines[body].strip()}")
            body += 1
    return directives, notes


def test_the_python_api_reference_is_its_docstrings_with_no_notes_beside_them():
    """Issue 46: what the API reference says of an object is the object's docstring (which ``help()`` shows too),
    so the page cannot drift from the code: an ``.. auto*::`` directive of python-api.rst carries its options
    (``:members:``) and nothing else; a note belongs in the docstring."""
    import sphinx_kexport.probe as probe

    directives, notes = autodoc_notes((EXAMPLE / "reference" / "python-api.rst").read_text(encoding="utf-8"))
    assert directives == len(probe.__all__)
    assert not notes, "python-api.rst: move these into the docstrings:\n" + "\n".join(notes)
    # the rule sees a note, an option that is not autodoc's (a field list written under it) and a nested one
    sample = (".. autoclass:: m.A\n   :members:\n\n   A note.\n\nProse.\n\n.. autofunction:: m.f\n"
              "   :param x: one\n\n.. autofunction:: m.g\n   :no-index:\n\n.. note::\n\n   .. autofunction:: m.h\n"
              "\n      Nested.\n   Outer.\n")
    assert autodoc_notes(sample) == (4, ["line 4: A note.", "line 9: :param x: one", "line 18: Nested."])


def test_the_development_page_draws_the_probe_stages_from_the_code(built):
    """The stages in their import order, and every module of every stage with its docstring's job."""
    import ast

    import sphinx_kexport.probe
    from sphinx_kexport.probe.base import STAGES

    soup = BeautifulSoup((built / "develop" / "architecture.html").read_text(encoding="utf-8"), "lxml")
    drawing = soup.select_one("div.kx-probe-stages, pre.kx-probe-stages").get_text()
    assert drawing.split("\n")[0] == " ◄── ".join(f"{stage}/" for stage in STAGES)
    rows = {tr.select("td")[0].get_text(): tr.select("td")[1].get_text(" ")
            for tr in soup.select("table.kx-probe-modules tbody tr")}
    folder = Path(sphinx_kexport.probe.__file__).parent
    modules = [p for stage in STAGES for p in sorted((folder / stage).rglob("*.py"))
               if p != folder / stage / "__init__.py"]
    labels = [p.relative_to(folder).parent.as_posix() + "/" + ("" if p.name == "__init__.py" else p.name)
              for p in modules]
    assert len(modules) > 60 and not [label for label in labels if label not in rows]
    assert "cases/slice/" in rows and "cases/slice/equality.py" in rows  # a subfolder's modules are listed too
    job = ast.get_docstring(ast.parse((folder / "run" / "worker_slot.py").read_text())).split()[:4]
    assert " ".join(rows["run/worker_slot.py"].split()).startswith(" ".join(job))


def in_chromium(test):
    """A browser test, skipped where Debian's chromium and chromium-driver are missing."""
    needs = pytest.mark.skipif(not chromium_available(), reason="Debian chromium and chromium-driver are "
                               "not installed")
    return pytest.mark.browser(needs(test))


@in_chromium
def test_the_whole_survey_page_shows_each_torch_version_and_what_changed(built, driver, base_url):
    """Issue 20 on the real page (every case, three versions): the selector swaps in a version's statuses
    and its ONNX card, and "changed between torch versions" keeps every row a version mark is on."""
    snapshots = [read_json(path) for path in WHOLE]
    supported = ("ok", "ok-breaks", "ok-unverified")
    onnx = [sum(c["results"]["cpu"]["onnx"]["status"] in supported for c in s["cases"]) for s in snapshots]
    rows = sum(1 for c in snapshots[0]["cases"] if any(c["results"]["cpu"][p]["status"] != "n/a" for p in
                                                         ("onnx", "export", "compile")))
    script = ("const card = document.querySelector('.kexport-cards .kexport-count--onnx-cpu').textContent;"
              "const cell = document.getElementById('kx-binary-focal-loss-with-logits-doc').cells[1];"
              "return [card, cell.querySelector('.kx-cur').textContent];")
    with opened(driver, base_url + "torch-versions-whole.html", width=1400) as page:
        # the newest first; the docstring's integer targets stopped exporting in 2.13.0 (the kornia guide)
        assert page.execute_script(script) == [f"{onnx[-1]} / {rows}", "no"]
        choose(page, "version", "2.9.1")
        assert page.execute_script(script) == [f"{onnx[0]} / {rows}", "yes"]
        wait_for(page, "return location.search.includes('kx-v=2.9.1')")
        choose(page, "version", "2.15.0")
        marked = page.execute_script("return [...document.querySelectorAll('table.kx-t tbody tr')]"
                                     ".filter(tr => tr.querySelector('small.kx-vm')).map(tr => tr.id)")
        choose(page, "filter", "versions")
        changed = visible_rows(page)
        assert set(marked) <= set(changed) and 40 <= len(marked) and len(changed) < rows
        status = page.find_element("css selector", ".kexport-controls [aria-live]").text
        assert status == f"Showing {len(changed):,} of {rows:,} configurations"


@in_chromium
def test_the_page_fits_beside_pydata_sidebars(built):
    # Regression: with overflow visible (for the sticky controls) pydata's
    # article container grew to its widest content and slid under the sidebar.
    with serve(built) as url, chromium(width=1400, height=900) as driver:
        driver.get(url + "export-support.html")
        state = driver.execute_script("""
            const article = document.querySelector('.bd-article-container').getBoundingClientRect();
            const side = document.querySelector('.bd-sidebar-primary').getBoundingClientRect();
            return {doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
                    left: article.left, sideRight: side.right};""")
        assert state["doc"] <= state["view"] + 1, state
        assert state["left"] >= state["sideRight"] - 1, state
        # Regression: pydata gives code `overflow-wrap: break-word`, so a long source location in
        # the details column set the column's minimum width and pushed the details out of view.
        # At a desktop width every table fits its scroll wrapper.
        # (content-visibility: auto skips laying out tables off screen: lay every cell out first)
        overflowing = driver.execute_script("""
            for (const cell of document.querySelectorAll('.kexport .kx-w td')) cell.getBoundingClientRect();
            return [...document.querySelectorAll('.kexport .kx-w')]
              .filter(w => w.scrollWidth > w.clientWidth + 1)
              .map(w => [w.firstElementChild.id, w.clientWidth, w.scrollWidth]);""")
        assert overflowing == []
        # pydata logs its own theme-switcher notice; our script must log nothing
        assert [e for e in console_errors(driver) if "kexport" in e] == []


# --------------------------------------------------------------------------
# the page features beyond the tables (reason index, :compare:, downloads, repro, API badges), on the kornia page in
# Chromium


@pytest.fixture(scope="module")
def site(built):
    return built  # served by conftest's base_url


@pytest.fixture(scope="module")
def snapshot_data():
    return normalise(read_json(SNAPSHOT))


@pytest.fixture(scope="module")
def model(snapshot_data):
    data, fmt = snapshot_data
    return build_model(build(data, SNAPSHOT.name))


@pytest.fixture
def page(driver, base_url):
    with opened(driver, base_url + "export-support.html", width=1400) as d:
        yield d


@pytest.mark.parametrize("rank", [0, -1])  # the most and the least frequent reason
@in_chromium
def test_a_reason_entry_filters_the_page_to_its_rows(page, model, rank):
    entry = build_index(model)[rank]
    click(page, page.find_element("css selector", f"#{entry.id} button.kx-rf"))
    assert sorted(visible_rows(page)) == sorted(entry.rows)
    status = page.find_element("css selector", ".kexport-controls [aria-live]").text
    assert status == f"Showing {len(entry.rows):,} of {len(list(model.rows)):,} configurations"
    # each of those rows links its reason back to the entry
    for row_id in entry.rows:
        assert page.find_elements("css selector", f"tr#{row_id} a[href='#{entry.id}']"), row_id


@in_chromium
def test_the_fixed_filter_shows_what_changed_since_kornias_sample(page, model, snapshot_data):
    data, _ = snapshot_data
    comparison = Comparison.of((load_comparison(str(COMPARED), COMPARED.name), COMPARED.name), data, model)
    fixed = sorted(row.id for row in model.rows
                   if any(c["kind"] == "fixed" for c in comparison.by_case.get(row.case.name, ())))
    assert fixed  # ColorJiggle[random] under torch.compile, as the page's text says
    select = page.find_element("css selector", ".kexport-controls select[data-kx=filter]")
    page.execute_script("arguments[0].value = 'fixed';"
                        "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", select)
    assert sorted(visible_rows(page)) == fixed
    marker = page.find_element("css selector", f"tr#{fixed[0]} .kx-ch")
    assert marker.text == "▲ fixed" and marker.is_displayed()


@in_chromium
def test_a_failing_row_offers_its_exact_repro(page, model):
    row = next(r for r in model.rows if r.case.call and r.failing)
    opsets = {d: int(model.snapshot.environments[d]["opset"]) for d in model.devices}
    templates = repro_templates(model.columns, opsets)
    expected = [fill_template(templates[f"{c.path}-{c.device}"], row.case.call, row.case.name, row.case.check)
                for c in row.cells if c.result.failing]
    # the row's repro, not the library statements its failures name (another <details> of <pre>s before it)
    box = page.find_element("css selector", f"tr#{row.id} details.kx-repro")
    click(page, box.find_element("css selector", "summary"))
    snippets = wait_for(page, f"const pres = Array.from(document.querySelectorAll('tr#{row.id} details.kx-repro pre'));"
                              "return pres.length > 1 && pres.filter(p => !p.hidden).map(p => p.textContent)")
    assert snippets == expected
    for code in snippets:
        compile(code, "repro", "exec")
        assert code.splitlines().count("import torch") == 1


@in_chromium
def test_the_download_links_fetch_the_committed_snapshot_and_its_csv(page, snapshot_data):
    hrefs = [a.get_attribute("href") for a in page.find_elements("css selector", "p.kexport-downloads a")]
    (json_status, json_text), (csv_status, csv_text) = fetch_texts(page, hrefs)
    assert json_status == 200 and json_text == SNAPSHOT.read_text(encoding="utf-8")
    data, _ = snapshot_data
    cells = sum(len(paths) for case in data["cases"] for paths in case["results"].values())
    assert csv_status == 200 and len(csv_text.splitlines()) == 1 + cells


@in_chromium
def test_an_api_badge_leads_to_its_row(driver, base_url):
    driver.get(base_url + "api/kornia.filters.html")
    badge = driver.find_element("css selector", "dd .kexport-badge")
    target = badge.get_attribute("hash")
    assert badge.is_displayed() and target.startswith("#kx-")
    click(driver, badge)
    wait_for(driver, "return location.pathname.endsWith('/export-support.html') "
                     f"&& location.hash === '{target}'")
    assert target[1:] in visible_rows(driver)
