"""A case whose target is its own lambda around the API: the repro rebuilds that lambda, or refuses.

It used to write ``fn = <the ref>`` and call the API with the case's inputs: kornia's
``Hyperplane.from_vector`` case wraps its tensors in ``Vector3`` first, so the pasted snippet failed
eagerly with a TypeCheckError, a status the probe never recorded.
"""

from __future__ import annotations

import textwrap

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe.cases.call_source import call_source  # noqa: E402
from sphinx_kexport.probe.cases.loader import load_inventory, resolve_sources  # noqa: E402

CASE_MODULE = '''
    import torch
    from sphinx_kexport.probe import case

    OFFSET = torch.tensor([0.5, -1.0])


    def shifted(x):
        return x + OFFSET


    class Holder:
        def __init__(self, k):
            self.k = k

        def scaled(self, x):
            return x * self.k


    def scaling(k):
        return lambda x: torch.mul(x, k)  # closes over k: not top-level source


    CASES = [
        case("wrapped", lambda x, y: torch.add(shifted(x), y, alpha=2.0),
             [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])], ref="torch.add", package="torch"),
        case("made_in_a_helper", scaling(3.0), [torch.tensor([1.0, 2.0])], ref="torch.mul", package="torch"),
        case("bound", Holder(2.0).scaled, [torch.tensor([1.0])], ref="own_function_cases.Holder.scaled",
             package="torch"),
        case("itself", torch.neg, [torch.tensor([1.0, 2.0])], ref="torch.neg", package="torch"),
    ]
'''


@pytest.fixture
def specs(tmp_path):
    path = tmp_path / "own_function_cases.py"
    path.write_text(textwrap.dedent(CASE_MODULE), encoding="utf-8")
    loaded, _ = load_inventory(resolve_sources([str(path)], tmp_path))
    return {spec.name: spec for spec in loaded}


def run(source):
    namespace: dict = {}
    exec(source, namespace)  # the snippet as a user pastes it
    return namespace["fn"](*namespace["inputs"])


def test_the_cases_own_lambda_is_rebuilt_with_what_it_reads(specs):
    spec = specs["wrapped"]
    source = call_source(spec)
    assert "OFFSET = torch.tensor([0.5, -1.0])" in source and "def shifted(x):" in source
    assert "fn = torch.add" not in source
    assert torch.equal(run(source), spec.target(*spec.inputs))  # tensor([4.0, 6.0]) + ... as probed


def test_a_lambda_it_cannot_rebuild_is_refused_not_replaced_by_the_api(specs):
    source = call_source(specs["made_in_a_helper"])
    assert "fn = torch.mul" not in source
    with pytest.raises(NotImplementedError, match="the case's own function scaling.<locals>.<lambda> around torch.mul"):
        run(source)


def test_a_case_of_the_api_itself_still_names_it(specs):
    source = call_source(specs["itself"])
    assert "torch.neg" in source
    assert torch.equal(run(source), torch.tensor([-1.0, -2.0]))


def test_a_method_bound_to_an_object_the_case_built_is_refused(specs):
    source = call_source(specs["bound"])
    assert "fn = own_function_cases.Holder.scaled" not in source  # the unbound function, a tensor as self
    with pytest.raises(NotImplementedError, match="Holder.scaled bound to the Holder object the case built"):
        run(source)
