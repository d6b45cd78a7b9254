"""Writes every scenario project's snapshots (tests/page/roots/test-*/_data) from tests/page/fixtures/.

    python tests/page/make_fixtures.py        # from any directory

The snapshots are committed; rerun this after changing a scenario and review
the diff. Each is validated on the way out (``dump_snapshot``).
"""

from __future__ import annotations

from pathlib import Path

from fixtures import (alias_scenario, browser_scenario, features_scenario, small_scenarios, speed_scenario,
                      versions_scenario, vocabulary_scenario, wide_tables_scenario)

ROOTS = Path(__file__).resolve().parent / "roots"

if __name__ == "__main__":
    for scenario in (small_scenarios, features_scenario, browser_scenario, versions_scenario, vocabulary_scenario,
                     alias_scenario, speed_scenario, wide_tables_scenario):
        scenario.write(ROOTS)
    print(f"wrote the scenario snapshots under {ROOTS}")
