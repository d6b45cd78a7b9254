"""Cases recorded from kornia's own test suite, one for each operator no hand-written case and no docstring
example reaches.

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
    """The first configuration ``tests/<folder>`` records for each operator of ``package`` that no case of
    ``covered`` (the hand-written and docstring cases) probes, by the object a ref names (aliases are one
    operator)."""
    probed = {identity(resolve(spec.ref)) for cases in covered for spec in cases if spec.ref}
    # discovery keeps up to 3 configurations an operator (the default, what `discover --tests` lists and caches);
    # the survey measures the first: kornia.feature's test cases take 1 to 8 minutes each on 2 cores
    # a configuration with tensor inputs comes before one without (``se3 * points`` before ``se3 * se3``): it
    # probes the operator on inputs rather than on constants
    chosen = {}
    for spec in cases_from_tests(package, kornia_tests(folder)):
        key = identity(resolve(spec.ref))
        if key in probed or (key in chosen and (chosen[key].inputs or not spec.inputs)):
            continue
        chosen[key] = spec
    return list(chosen.values())
