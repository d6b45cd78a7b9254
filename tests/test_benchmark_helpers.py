"""The arithmetic the benchmark scripts report with: the sample of a whole survey that bench_code_watch.py
measures, its interval, and the list-table side of bench_page.py that carries the page's fix words."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "benchmarks")]


def test_the_sample_takes_every_kth_case_each_of_which_only_matches_alone(tmp_path):
    from bench_code_watch import sampled_names

    names = ["Blur", "Blur[doc]", "Blur[doc 2]", "warp", "warp_affine", "Sharpen[doc]", "crop[test]", "flip"]
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps({"cases": [{"name": n} for n in names]}))
    # "Blur" and "warp" begin other names (--only matches prefixes): the next name stands in for each
    assert sampled_names(snapshot, 3) == ["Blur[doc]", "warp_affine", "flip"]  # indexes 1, 4, 7
    assert sampled_names(snapshot, 1) == [n for n in names if n not in {"Blur", "warp"}]


def test_the_interval_of_the_ratio_holds_the_ratio_and_narrows_with_agreeing_cases():
    from bench_code_watch import ratio_interval

    off = [1.0, 2.0, 3.0, 4.0, 10.0]
    steady = ratio_interval([1.2 * x for x in off], off)
    assert steady == (1.2, 1.2) or abs(steady[0] - 1.2) < 1e-9 and abs(steady[1] - 1.2) < 1e-9
    low, high = ratio_interval([1.0, 2.4, 3.0, 4.8, 12.0], off)
    assert low < sum([1.0, 2.4, 3.0, 4.8, 12.0]) / sum(off) < high


def test_the_list_table_with_fixes_says_what_the_pages_details_say():
    from baseline_listtable import render
    from synthetic import make_snapshot

    from sphinx_kexport.page.model.page_model import build_model
    from sphinx_kexport.snapshot import build
    from sphinx_kexport.snapshot.fix_classes import NO_LOWERING

    model = build_model(build(make_snapshot(120, ("cpu", "cuda"), seed=3), "synthetic"))
    plain, with_fixes = render(model), render(model, fixes=True)
    assert "(fix:" not in plain
    lowering = NO_LOWERING
    assert f"(fix: {lowering.title}: {lowering.fix})" in with_fixes
    # the same rows and cells: only the Details of failing rows grew
    plain_lines, fix_lines = plain.splitlines(), with_fixes.splitlines()
    assert len(plain_lines) == len(fix_lines)
    changed = [(a, b) for a, b in zip(plain_lines, fix_lines) if a != b]
    assert changed
    assert all(a.startswith("     - **") and len(b) > len(a) for a, b in changed)
