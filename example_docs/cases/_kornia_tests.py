"""Cases recorded from kornia's own test suite, for the operators no hand-written case and no docstring
example reaches (the others keep their cases: each configuration costs a refresh about 4 s of CPU).

Kornia's tests are not in its wheel or sdist: they come from a checkout of kornia's source at the
version the survey pins, which this repository does not commit. Put it at ``example_docs/_kornia``
(ignored by git) or name it with ``KORNIA_SOURCE``::

    git clone --depth 1 --branch v0.9.0 https://github.com/kornia/kornia example_docs/_kornia

Not a case module (the probe skips files whose name starts with "_").
"""

import os
from pathlib import Path

from sphinx_kexport.probe import cases_from_tests
from _inputs import identity, resolve

DEFAULT_CHECKOUT = Path(__file__).resolve().parents[1] / "_kornia"

def kornia_tests(folder):
    """``tests/<folder>`` of the kornia checkout; a clear error when the checkout is not there."""
    checkout = Path(os.environ.get("KORNIA_SOURCE") or DEFAULT_CHECKOUT)
    tests = checkout / "tests" / folder
    if not tests.is_dir():
        raise FileNotFoundError(
            f"kornia's tests are not at {tests}: the example's cases from kornia's test suite need a checkout of "
            f"kornia's source at the installed version. Run `git clone --depth 1 --branch v0.9.0 "
            f"https://github.com/kornia/kornia {DEFAULT_CHECKOUT}`, or set KORNIA_SOURCE to a checkout you have.")
    return tests


def from_tests(package, folder, *covered):
    """The cases ``tests/<folder>`` records for ``package``, less every operator a case of ``covered`` (the
    hand-written and docstring cases) already probes, by the object a ref names (aliases are one operator)."""
    probed = {identity(resolve(spec.ref)) for cases in covered for spec in cases if spec.ref}
    found = cases_from_tests(package, kornia_tests(folder))  # up to 3 configurations an operator
    return [spec for spec in found if identity(resolve(spec.ref)) not in probed]
