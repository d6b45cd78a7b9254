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


    def _fitted(points):  # the case's own named function around the API (kornia's KMeans.fit case)
        try:
            centre = points.mean(0)
        except RuntimeError as exc:
            raise ValueError("no points") from exc
        return torch.sub(points, centre + OFFSET)


    CASES = [
        case("wrapped", lambda x, y: torch.add(shifted(x), y, alpha=2.0),
             [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])], ref="torch.add", package="torch"),
        case("made_in_a_helper", scaling(3.0), [torch.tensor([1.0, 2.0])], ref="torch.mul", package="torch"),
        case("bound", Holder(2.0).scaled, [torch.tensor([1.0])], ref="own_function_cases.Holder.scaled",
             package="torch"),
        case("itself", torch.neg, [torch.tensor([1.0, 2.0])], ref="torch.neg", package="torch"),
        case("named", _fitted, [torch.tensor([[1.0, 2.0], [3.0, 5.0]])], ref="torch.sub", package="torch"),
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


def test_the_cases_own_named_function_is_rebuilt_with_what_it_reads(specs):
    spec = specs["named"]
    source = call_source(spec)
    assert "def _fitted(points):" in source and "OFFSET = torch.tensor([0.5, -1.0])" in source, source
    assert "target = _fitted" in source and "fn = torch.sub" not in source, source
    assert torch.equal(run(source), spec.target(*spec.inputs))


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


HELPER_MODULE = '''
    import torch

    SCALE = 3.0


    def rand(*shape, seed=0):
        gen = torch.Generator().manual_seed(seed)
        return torch.rand(*shape, generator=gen) * SCALE
'''

HELPED_CASES = '''
    import torch
    from sphinx_kexport.probe import case

    from _shared_inputs import rand as _rand

    IMAGE = _rand(2, 3, seed=4)

    CASES = [
        case("helped", lambda x: torch.flip(x, [1]) + _rand(3, seed=5), [IMAGE], ref="torch.flip", package="torch"),
        # too large to be written out as values: its expression is
        case("helped_inputs", torch.neg, [_rand(40, 40, seed=6)], ref="torch.neg", package="torch"),
    ]
'''


def test_a_helper_module_beside_the_case_module_is_written_out_so_the_snippet_runs_anywhere(tmp_path):
    import subprocess
    import sys

    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "_shared_inputs.py").write_text(textwrap.dedent(HELPER_MODULE), encoding="utf-8")
    (folder / "helped_cases.py").write_text(textwrap.dedent(HELPED_CASES), encoding="utf-8")
    loaded, _ = load_inventory(resolve_sources([str(folder / "helped_cases.py")], tmp_path))
    specs = {spec.name: spec for spec in loaded}
    for name in ("helped", "helped_inputs"):
        spec = specs[name]
        source = call_source(spec)
        assert "_shared_inputs" not in source and "def rand(*shape, seed=0):" in source and "SCALE = 3.0" in source
        # pasted into a fresh interpreter elsewhere: the case modules' folder is not on its path
        script = source + "\nimport sys\ntorch.save(fn(*inputs), sys.argv[1])\n"
        out = tmp_path / f"{name}.pt"
        done = subprocess.run([sys.executable, "-c", script, str(out)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert torch.equal(torch.load(out), spec.target(*spec.inputs))


WRAPPED_CASES = '''
    import torch
    from sphinx_kexport.probe import case


    def c(section, name, target, inputs, **kw):  # the module's own shorthand for case()
        return case(name, target, inputs, package="torch", section=section, **kw)


    def _seeded(make):
        torch.manual_seed(0)
        return make().eval()


    X = torch.linspace(-1.0, 1.0, 6).reshape(2, 3)

    CASES = [
        c("layers", "linear[random weights]", _seeded(lambda: torch.nn.Linear(3, 2)), [X], ref="torch.nn.Linear"),
        c("layers", "linear[other seed]", torch.nn.Linear(3, 2), [X], ref="torch.nn.Linear"),
    ]
'''


def test_a_case_registered_through_the_modules_own_helper_rebuilds_its_seeded_weights(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "wrapped_cases.py"
    path.write_text(textwrap.dedent(WRAPPED_CASES), encoding="utf-8")
    loaded, _ = load_inventory(resolve_sources([str(path)], tmp_path))
    specs = {spec.name: spec for spec in loaded}
    source = call_source(specs["linear[random weights]"])
    assert "def _seeded(make):" in source and "cannot rebuild" not in source
    out = tmp_path / "out.pt"
    done = subprocess.run([sys.executable, "-c", source + "\nimport sys\ntorch.save(fn(*inputs), sys.argv[1])\n",
                           str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    spec = specs["linear[random weights]"]
    assert torch.equal(torch.load(out), spec.target(*spec.inputs))
    # weights drawn from wherever the global generator stood: the helper's call is found, and refused
    assert "cannot rebuild" in call_source(specs["linear[other seed]"])
