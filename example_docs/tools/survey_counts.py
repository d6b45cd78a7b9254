"""Count the example survey's configurations the way the probe loads them, before probing anything.

Loads the case sources of ``[tool.sphinx-kexport]`` with the probe's own
loader (the docstring examples run, the hand-written cases win on repeats)
and prints: configurations, distinct operators (``ref``), how many come from
each origin (hand-written, docstring example, test), repeats dropped, per
package; then the load's wall time and peak memory::

    python example_docs/tools/survey_counts.py

It imports the case modules, so it needs torch and kornia.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # sphinx_kexport from the checkout when it is not installed

from sphinx_kexport.probe.survey.config import read_table  # noqa: E402
from sphinx_kexport.snapshot.vocabulary import ORIGINS  # noqa: E402
from sphinx_kexport.probe.cases.loader import load_inventory, resolve_sources  # noqa: E402


def configured_inventory(pyproject: Path) -> tuple[list, list]:
    """The cases (and dropped repeats) of the ``cases`` entries of ``pyproject``, loaded as the probe loads them."""
    entries = read_table(pyproject).get("cases", [])
    entries = [entries] if isinstance(entries, str) else list(entries)
    return load_inventory(resolve_sources([str(e) for e in entries], pyproject.parent))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=ROOT / "pyproject.toml")
    args = parser.parse_args(argv)
    began = time.monotonic()
    cases, repeats = configured_inventory(args.config)
    seconds = time.monotonic() - began
    probed = [c for c in cases if not c.skip]
    refs = {c.ref or c.name for c in probed}
    by_package: dict[str, list] = defaultdict(list)
    for spec in cases:
        by_package[spec.package].append(spec)
    print(f"{'package':24} {'cases':>6} " + " ".join(f"{o[:5]:>5}" for o in ORIGINS) + f" {'skip':>5} {'operators':>9}")
    for package in sorted(by_package):
        specs = by_package[package]
        origins = Counter(s.origin for s in specs)
        print(f"{package:24} {len(specs):6} " + " ".join(f"{origins[o]:5}" for o in ORIGINS) +
              f" {sum(1 for s in specs if s.skip):5} {len({s.ref or s.name for s in specs if not s.skip}):9}")
    print(f"\nconfigurations: {len(cases)} registered, {len(probed)} probed (the rest are skip entries)")
    print(f"distinct operators: {len(refs)}")
    for origin in ORIGINS:
        mine = [c for c in probed if c.origin == origin]
        print(f"  {origin}: {len(mine)} configurations, {len({c.ref or c.name for c in mine})} operators")
    print(f"{len(repeats)} discovered cases repeated a case of a better origin and were dropped")
    skips = Counter(c.skip.split(":")[0][:60] for c in cases if c.skip)
    for reason, count in skips.most_common():
        print(f"  skip: {count} x {reason}")
    print(f"load: {seconds:.0f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
