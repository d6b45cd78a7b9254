"""``:repro-check:``: the page says which failing cells' snippets reproduce them, from the file ``probe repro
--check --write`` wrote (tests/page/roots/test-repro-check; probe: tests/probe/cli/test_probe_repro_cli.py)."""

from __future__ import annotations

import json

import pytest
from page_support import soup, warnings

from sphinx_kexport.snapshot import SnapshotError, read_snapshot
from sphinx_kexport.snapshot.records import build
from sphinx_kexport.snapshot.repro_checks import CheckedCell, check_matches, checks_document, parse_checks
from pathlib import Path

DATA = Path(__file__).resolve().parent / "roots" / "test-repro-check" / "_data"


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("repro-check", "html")


def _checked(page) -> dict[str, list[str]]:
    return {small.find_parent("tr")["id"]: [" ".join(span.get_text().split()) for span in small.select("span")]
            for small in page.select("table.kx-t small.kx-rpc")}


def test_each_checked_row_says_which_snippets_reproduce(html):
    page = soup(html)
    assert _checked(page) == {
        "kx-color-hsv-to-rgb": ["ONNX (cpu) reproduces"],
        "kx-geometry-warp-affine": ["ONNX (cpu) does not reproduce"],
        "kx-geometry-warp-affine-fill": ["ONNX (cpu) reproduces"],
        "kx-geometry-solve": ["torch.export (cpu) could not run", "ONNX (cpu) could not run"],
    }
    # what happened instead is said beside a snippet that did not reproduce, not beside one that did
    solve = page.select_one("#kx-geometry-solve small.kx-rpc").get_text()
    assert solve.count("the case records no call to rebuild it from") == 2
    assert "lowering" not in page.select_one("#kx-color-hsv-to-rgb small.kx-rpc").get_text()
    # rows that were not checked (rgb_to_gray fails on cuda only) carry no mark
    assert not page.select("#kx-color-rgb-to-gray small.kx-rpc")


def test_the_check_file_is_data_escaped_like_the_snapshot(html):
    page = soup(html)
    mark = page.select_one("#kx-geometry-warp-affine small.kx-rpc")
    assert "ran to the end (<script>alert(1)</script>)" in mark.get_text()
    assert not page.select("table.kx-t script")


def test_the_counts_are_said_under_how_it_was_measured(html):
    sentence = " ".join(soup(html).select_one("p.kexport-repro-checks").get_text().split())
    assert "under torch 2.13.0" in sentence and "on cpu" in sentence
    assert "2 of 5 reproduce their cell (40 %); 1 ended otherwise and 2 could not run" in sentence


def test_a_check_of_another_torch_is_an_error_that_says_what_to_do(html):
    said = warnings(html)
    assert "stale.rst" in said and "checks-other-torch.json" in said
    assert "the snippets ran under torch 2.9.1, but _data/support.json was measured under torch 2.13.0" in said
    assert "repro --check SNAPSHOT --write FILE" in said
    assert "index.rst" not in said  # the good page builds clean
    assert soup(html, "stale.html").select_one("div.kexport-error")


def _snapshot():
    data, _ = read_snapshot(DATA / "support.json")
    return build(data, "support.json")


@pytest.mark.parametrize("edit, said", [
    (lambda d: d.pop("device"), "field 'device': expected a non-empty string"),
    (lambda d: d["cells"][0].update(verdict="maybe"), "cells[0].verdict (color.hsv_to_rgb): expected one of "
                                                      "reproduced, ended otherwise, could not run"),
    (lambda d: d["cells"][1].update(path="jit"), "cells[1].path (geometry.warp_affine): expected one of"),
    (lambda d: d.update(cells={}), "field 'cells': expected a list of checked cells"),
])
def test_a_malformed_file_names_the_field_and_what_was_expected(edit, said):
    data = json.loads((DATA / "checks.json").read_text())
    edit(data)
    with pytest.raises(SnapshotError) as caught:
        parse_checks(data, "checks.json")
    assert str(caught.value).startswith("checks.json: ") and said in str(caught.value)
    assert "repro --check SNAPSHOT --write FILE" in str(caught.value)


@pytest.mark.parametrize("cell, said", [
    (CheckedCell("color.rgb_to_gray", "onnx", "reproduced", ""), "its onnx cell is ok"),
    (CheckedCell("color.gone", "onnx", "reproduced", ""), "found no such case"),
])
def test_a_check_of_a_cell_that_no_longer_fails_is_an_error(cell, said):
    document = checks_document("support.json", "2.13.0", "cpu", [cell])
    with pytest.raises(SnapshotError, match="the snapshot changed since the check") as caught:
        check_matches(parse_checks(document, "checks.json"), _snapshot())
    assert said in str(caught.value)


def test_a_check_of_a_device_the_snapshot_lacks_is_an_error():
    document = checks_document("support.json", "2.13.0", "mps", [])
    with pytest.raises(SnapshotError, match="device 'mps': the snapshot support.json has no results on it"):
        check_matches(parse_checks(document, "checks.json"), _snapshot())
