"""A discovered case keeps working after discovery frees its example's namespace.

In the kornia survey ``Lambda[doc]`` failed eagerly with "NameError: name 'kornia' is not defined": the example's
lambda reads the example's globals, and discovery emptied that dict to free memory."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_a_lambda_from_the_example_still_reads_its_globals(monkeypatch):
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", "off")
    from sphinx_kexport.probe import cases_from_docstrings

    cases = cases_from_docstrings("probe_cases.lambdalib")
    assert [c.name for c in cases] == ["apply[doc]"]
    spec = cases[0]
    out = spec.target(*spec.inputs, **spec.kwargs)
    assert torch.equal(out, torch.full((2, 3), 1.5))
