"""The lines a repro snippet carries that ``probe repro --check`` reads back, and the seed: one definition.

``snapshot/repro.py`` writes the snippet with them; ``probe/cli/repro_verdict.py`` tells from them where a run
stopped (building the call, the eager run, the path, the comparison); the probe's case sources
(``probe/cases/call_source.py``, ``probe/discover/suite/suite_cases.py``) stop a snippet whose call they cannot rebuild
with :func:`cannot_rebuild`, which the verdict reads as "could not run". Both sides read them from this module
when they run (``repro_landmarks.EAGER_LINE``, not a copy taken at import), so a landmark changed here changes
what is written and what is matched together (tests/snapshot/test_repro_landmarks.py). Standard library only.
"""

from __future__ import annotations

SEED = 1234  # the probe seeds every eager run and every capture with it (probe/measure/case_run.py), as the snippet
EAGER_LINE = "expected = leaves(model(*inputs))"  # the snippet's eager run
COMPARE_START = "assert "  # how the comparison's first line begins (the first such line after the eager run)
CANNOT_REBUILD = "this snippet cannot rebuild"  # how the message of a snippet that cannot rebuild its call begins


def seed_line() -> str:
    """The statement that seeds torch as the probe does, before the eager run and before the path."""
    return f"torch.manual_seed({SEED})"


def cannot_rebuild(what: str) -> str:
    """The line that stops a snippet whose call cannot be rebuilt: ``what`` says what and where to look ("the
    probed callable: it is ...")."""
    return f"raise NotImplementedError({f'{CANNOT_REBUILD} {what}'!r})"
