"""Docstring discovery at a library's scale: memory freed between examples, several packages in one survey.

Each test writes a tiny real library into tmp_path, runs the real discovery
and the real case loader on it.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")


def write_library(root, name, files):
    for relative, text in files.items():
        path = root / name / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def test_an_example_s_objects_are_freed_before_the_next_example_runs(tmp_path):
    # a_build's example keeps a Marker in its namespace; b_check's example (run next: dotted-name order)
    # fails unless that Marker is gone by then
    write_library(tmp_path, "memlib_kx", {"__init__.py": '''
        import weakref

        ALIVE = weakref.WeakSet()


        class Marker:
            def __init__(self):
                ALIVE.add(self)


        def a_build(x):
            """Double.

            >>> kept = Marker()
            >>> a_build(torch.ones(2))
            tensor([2., 2.])
            """
            return 2 * x


        def b_check(x):
            """Triple.

            >>> assert len(ALIVE) == 0, "the previous example's objects are still alive"
            >>> b_check(torch.ones(2))
            tensor([3., 3.])
            """
            return 3 * x
        '''})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover("memlib_kx", time_limit=5)
    reports = {r.ref: r for r in found.objects}
    assert reports["memlib_kx.b_check"].skip == "", reports["memlib_kx.b_check"].detail
    assert [c.name for c in found.cases] == ["a_build[doc]", "b_check[doc]"]


TWIN_OPS = '''
    def scale(x, factor=2.0):
        """Scale.

        >>> scale(torch.ones({n}), factor=3.0).shape
        torch.Size([{n}])
        """
        return x * factor
    '''


def twin_survey(tmp_path, library: str, prefix: str):
    """A library with subpackages a and b that both define ``scale``, and a folder with one case module
    per subpackage (``<prefix>_a.py``, ``<prefix>_b.py``) that discovers its cases from docstrings."""
    write_library(tmp_path, library, {"__init__.py": "", "a/__init__.py": TWIN_OPS.format(n=2),
                                      "b/__init__.py": TWIN_OPS.format(n=3)})
    cases = tmp_path / prefix
    cases.mkdir()
    for part in "ab":
        (cases / f"{prefix}_{part}.py").write_text(
            "from sphinx_kexport.probe import cases_from_docstrings\n"
            f"CASES = cases_from_docstrings('{library}.{part}')\n")
    return cases


def test_two_packages_that_share_a_callable_name_get_distinct_case_names(tmp_path):
    cases = twin_survey(tmp_path, "twinlib_kx", "cases")
    from sphinx_kexport.probe.cases.loader import load_inventory, resolve_sources

    specs, _ = load_inventory(resolve_sources([str(cases)], tmp_path))
    assert [(s.name, s.ref, tuple(s.inputs[0].shape)) for s in specs] == [
        ("scale[doc]", "twinlib_kx.a.scale", (2,)), ("scale[doc][twinlib_kx.b]", "twinlib_kx.b.scale", (3,))]


def test_a_call_naming_a_file_is_no_case(tmp_path):
    """A worker replaying ``load_values("values.txt")`` would not find the file the example wrote."""
    write_library(tmp_path, "filelib_kx", {"__init__.py": '''
        import torch


        def load_values(path):
            """Reads numbers from a file.

            >>> _ = open("values.txt", "w").write("1 2 3")
            >>> load_values("values.txt")
            tensor([1., 2., 3.])
            """
            with open(path) as f:
                return torch.tensor([float(v) for v in f.read().split()])
        '''})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover("filelib_kx", time_limit=5)
    loader = next(r for r in found.objects if r.ref.endswith("load_values"))
    assert (found.cases, loader.skip) == ([], "no tensor call")


def test_an_object_whose_getattr_recurses_is_asked_safely(tmp_path):
    """kornia's random generators answer any unknown attribute by asking themselves again: looking for the tensors
    an object holds must not crash discovery with a RecursionError."""
    write_library(tmp_path, "oddlib_kx", {"__init__.py": '''
        import torch


        class Odd:
            """Holds a tensor; any other attribute recurses.

            >>> Odd().total()
            tensor(2.)
            """

            def __init__(self):
                self.values = torch.ones(2)

            def __getattr__(self, name):
                return getattr(self, name)

            def total(self):
                return self.values.sum()
        '''})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover("oddlib_kx", time_limit=5)
    assert [(c.name, c.inputs) for c in found.cases] == [("Odd.total[doc]", [])]
    assert torch.equal(found.cases[0].target(), torch.tensor(2.0))


def test_methods_of_plain_classes_and_star_args_modules_become_cases(tmp_path):
    write_library(tmp_path, "methlib_kx", {"__init__.py": '''
        import torch


        class Rot:
            """A 2D rotation holding its angle.

            >>> r = Rot.from_angle(torch.tensor([0.5]))
            >>> r.apply(torch.ones(3, 2)).shape
            torch.Size([3, 2])
            >>> (r * r).angle
            tensor([1.])
            >>> r.describe()
            'rotation'
            """

            def __init__(self, angle):
                self.angle = angle

            @classmethod
            def from_angle(cls, angle):
                return cls(angle)

            def apply(self, points):
                c, s = torch.cos(self.angle), torch.sin(self.angle)
                return torch.stack([c * points[:, 0] - s * points[:, 1], s * points[:, 0] + c * points[:, 1]], -1)

            def __mul__(self, other):
                return Rot(self.angle + other.angle)

            def describe(self):
                return "rotation"


        class Sum(torch.nn.Module):
            """Adds its inputs.

            >>> Sum()(torch.ones(2), torch.ones(2))
            tensor([2., 2.])
            """

            def forward(self, *inputs):
                return sum(inputs)
        '''})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover("methlib_kx", time_limit=5)
    cases = {c.name: c for c in found.cases}
    # r * r: a method of an object holding a tensor, with no tensor argument, is a case; r was built from a
    # tensor, so the receiver and the argument are rebuilt in the graph from it (live inputs: live-receivers tests)
    assert sorted(cases) == ["Rot.__mul__[doc]", "Rot.apply[doc]", "Rot.from_angle[doc]", "Sum[doc]"]
    composed = cases["Rot.__mul__[doc]"]
    assert composed.inputs == [torch.tensor([0.5]), torch.tensor([0.5])], composed.note
    assert torch.equal(composed.target(*composed.inputs, **composed.kwargs).angle, torch.tensor([1.0]))
    apply = cases["Rot.apply[doc]"]
    assert apply.ref == "methlib_kx.Rot.apply" and apply.note.endswith(
        "the Rot built in the example by Rot.from_angle(angle) is rebuilt in the graph; self.angle (1), points (3,2) "
        "live")
    assert torch.allclose(apply.target(torch.tensor([0.5]), torch.tensor([[1.0, 0.0]])),
                          torch.tensor([[0.8776, 0.4794]]), atol=1e-4)  # the example's Rot(0.5), rebuilt
    assert torch.allclose(apply.target(torch.tensor([0.0]), torch.tensor([[1.0, 0.0]])), torch.tensor([[1.0, 0.0]]))
    assert cases["Rot.from_angle[doc]"].target(torch.tensor([2.0])).angle.item() == 2.0
    assert torch.equal(cases["Sum[doc]"].target(*cases["Sum[doc]"].inputs), torch.full((2,), 2.0))
    from methlib_kx import Rot

    assert type(vars(Rot)["from_angle"]) is classmethod and vars(Rot)["apply"].__name__ == "apply"
    assert not hasattr(vars(Rot)["apply"], "__kexport_original__")  # the proxies are gone after discovery


def _inventory(sources):
    from sphinx_kexport.probe.cases.describe import describe_module
    from sphinx_kexport.probe.cases.inventory import join_inventory

    return join_inventory((source.label, describe_module(source)) for source in sources)[0]


def test_a_worker_builds_a_discovered_case_alone_from_the_discovery_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", str(tmp_path / "cache"))
    cases = twin_survey(tmp_path, "twinlib2_kx", "cases2")
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.cases.loader import LoadError, resolve_sources
    from sphinx_kexport.probe.run.case_builder import CaseBuilder

    sources = resolve_sources([str(cases)], tmp_path)
    inventory = {case.name: case for case in _inventory(sources)}  # what the parent holds; fills the cache
    assert set(inventory) == {"scale[doc]", "scale[doc][twinlib2_kx.b]"}
    for module in ("cases2_a", "cases2_b"):
        sys.modules.pop(module, None)  # a fresh worker has imported nothing
    builder = CaseBuilder(sources)
    for name, described in inventory.items():
        spec = builder.build(name, described.module, described.local_name, described.discovery, described.definition)
        assert spec.name == name and spec.ref == described.ref
        assert case_definition(spec) == described.definition  # the case the inventory described, name and all
        assert "cases2_a" not in sys.modules and "cases2_b" not in sys.modules  # no case module was imported
    second = inventory["scale[doc][twinlib2_kx.b]"]
    with pytest.raises(LoadError, match="no longer registers case 'scale\\[doc\\]' .* differs in: kwargs"):
        builder.build(second.name, second.module, second.local_name, second.discovery,
                      dict(second.definition, kwargs="another"))


def test_without_the_cache_a_worker_builds_the_case_from_its_one_example_never_through_its_module(tmp_path):
    # before issue 43 it imported the case module with all its discovered cases: every example of the package
    # and, in e3nn's case module, a whole test suite, to build one case
    cases = twin_survey(tmp_path, "twinlib3_kx", "cases3")
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.cases.loader import resolve_sources
    from sphinx_kexport.probe.run.case_builder import CaseBuilder

    sources = resolve_sources([str(cases)], tmp_path)
    inventory = {case.name: case for case in _inventory(sources)}
    for module in ("cases3_a", "cases3_b"):
        sys.modules.pop(module, None)
    builder = CaseBuilder(sources)
    for name, described in inventory.items():
        spec = builder.build(name, described.module, described.local_name, described.discovery, described.definition)
        assert case_definition(spec) == described.definition
        assert "cases3_a" not in sys.modules and "cases3_b" not in sys.modules


def test_a_discovered_case_its_module_changes_is_built_through_the_module_with_that_example_alone(tmp_path):
    """A case module that changes its discovered cases (another atol) gets the case the inventory described;
    the module's discovery call then runs that one example, not the package's others (a counter shows it)."""
    counter = tmp_path / "runs.txt"
    write_library(tmp_path, "focuslib_kx", {"__init__.py": f'''
        import torch


        def scale(x):
            """Doubles.

            >>> _ = open({str(counter)!r}, "a").write("scale ")
            >>> scale(torch.ones(2))
            tensor([2., 2.])
            """
            return x * 2


        def shift(x):
            """Adds one.

            >>> _ = open({str(counter)!r}, "a").write("shift ")
            >>> shift(torch.ones(3))
            tensor([2., 2., 2.])
            """
            return x + 1
        '''})
    (tmp_path / "focus_cases.py").write_text(
        "import dataclasses\n"
        "from sphinx_kexport.probe import cases_from_docstrings\n"
        "CASES = [dataclasses.replace(c, atol=1e-3) for c in cases_from_docstrings('focuslib_kx')]\n")
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.cases.loader import resolve_sources
    from sphinx_kexport.probe.run.case_builder import CaseBuilder

    sources = resolve_sources([str(tmp_path / "focus_cases.py")], tmp_path)
    inventory = {case.name: case for case in _inventory(sources)}
    assert counter.read_text().split() == ["scale", "shift"]  # the inventory ran each example once
    sys.modules.pop("focus_cases", None)
    counter.write_text("")
    described = inventory["shift[doc]"]
    spec = CaseBuilder(sources).build("shift[doc]", described.module, described.local_name, described.discovery,
                                      described.definition)
    assert case_definition(spec) == described.definition and spec.atol == 1e-3
    assert set(counter.read_text().split()) == {"shift"}  # only its own example ran, never scale's


def coin(x):
    """x or -x, by a fair coin: under seeds 1 and 2 torch.rand(1) is above 0.5 both times."""
    return x if torch.rand(1).item() >= 0.5 else -x


def test_a_coin_flip_that_two_seeds_agree_on_is_still_found_random():
    from sphinx_kexport.probe.discover.recording.randomness import is_random

    assert is_random(coin, [torch.ones(2)], {})
    assert not is_random(torch.neg, [torch.ones(2)], {})


def shuffle_one_channel(x):
    """Shuffles the channels of x: with one channel every draw keeps the output as it was."""
    return x[:, torch.randperm(x.shape[1])]


def test_a_call_that_draws_is_random_even_when_its_output_never_changes():
    # kornia's RandomChannelShuffle[doc] (two channels, p=0.5) kept its output under all eight seeds, was
    # registered checked, and its ONNX graph's own random draw then read as a mismatch
    from sphinx_kexport.probe.discover.recording.randomness import is_random

    assert is_random(shuffle_one_channel, [torch.rand(1, 1, 2, 2)], {})
    assert not is_random(torch.mul, [torch.rand(1, 1, 2, 2), torch.rand(1)], {})


def test_a_call_that_reads_no_random_state_runs_once_and_one_that_reads_python_random_is_found_random():
    # piq's PR example (a 10000 x 1024 feature comparison) spent 54 s of discovery running nine times
    import random

    from sphinx_kexport.probe.discover.recording.randomness import RANDOM_SEEDS, is_random

    runs = []

    def steady(x):
        runs.append("steady")
        return x * 2

    def python_coin(x):  # no torch draw to see: the seeds' outputs decide
        runs.append("coin")
        return x if random.random() >= 0.5 else -x

    assert not is_random(steady, [torch.ones(2)], {}) and runs.count("steady") == 1
    assert is_random(python_coin, [torch.ones(2)], {}) and 1 < runs.count("coin") <= len(RANDOM_SEEDS)


def test_a_call_that_returns_no_tensor_is_not_a_case(tmp_path):
    write_library(tmp_path, "checklib_kx", {"__init__.py": '''
        def check_shape(x, dims):
            """True when x has len(dims) dimensions.

            >>> check_shape(torch.ones(2, 3), ["H", "W"])
            True
            """
            return x.dim() == len(dims)
        '''})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    report = discover("checklib_kx", time_limit=5).objects[0]
    assert report.cases == [] and report.skip == "no tensor call"
    assert "check_shape: it returns no tensor" in report.detail


GROUP_LIBRARY = '''
    import torch


    def _held(angle):
        # as kornia's Lie groups: a parameter when built eagerly, a plain attribute inside a capture
        capturing = torch.compiler.is_compiling() or torch.compiler.is_exporting()
        return angle if capturing else torch.nn.Parameter(angle)


    class Rot(torch.nn.Module):
        """A rotation by an angle, held in a module (no forward), as kornia's So3 is.

        >>> a = Rot.identity()
        >>> b = Rot(torch.tensor([0.5]))
        >>> a.compose(b).angle.shape
        torch.Size([1])
        >>> Rot.identity().angle.shape
        torch.Size([1])
        """

        def __init__(self, angle):
            super().__init__()
            self.angle = _held(angle)

        @classmethod
        def identity(cls):
            return cls(torch.zeros(1))

        def compose(self, other):
            return Rot(self.angle + other.angle)

        def inverse(self):
            return Rot(-self.angle)


    class Pose(torch.nn.Module):
        """A rotation and a translation.

        >>> pose = Pose(Rot(torch.tensor([0.5])), torch.tensor([1.0, 2.0]))
        >>> pose.inverse().t
        tensor([-1., -2.])
        """

        def __init__(self, rot, t):
            super().__init__()
            self.rot = rot
            self.t = _held(t)

        def inverse(self):
            return Pose(self.rot.inverse(), -self.t)
    '''


def test_a_value_held_in_a_module_is_a_result_and_an_argument_and_a_repeated_call_is_one_case(tmp_path):
    """kornia's ``So3.exp(v)``, ``se3.inverse()`` and ``q0.slerp(q1, 0.3)``: a module without a forward holds a
    value; a call returning one is measured on the tensors it holds (by attribute name, which reads the same
    whether the module was built eagerly or inside a capture); a call taking one and no tensor is a case too."""
    write_library(tmp_path, "grouplib_kx", {"__init__.py": GROUP_LIBRARY})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover
    from sphinx_kexport.probe.measure.output_leaves import flatten_outputs
    from sphinx_kexport.probe.measure.locate import library_root
    from sphinx_kexport.probe.measure.measurement import Measurement

    found = discover("grouplib_kx", time_limit=30)
    cases = {spec.name: spec for spec in found.cases}
    assert {"Rot.identity[doc]", "Rot.compose[doc]", "Pose.inverse[doc]"} <= set(cases)
    rot = next(r for r in found.objects if r.ref == "grouplib_kx.Rot")
    # Rot.identity() twice in one example: one configuration, said, not measured twice
    assert "Rot.identity[doc 2] repeats Rot.identity[doc] (the same call on the same inputs)" in rot.dropped
    assert "Rot.identity[doc 2]" not in cases
    compose, inverse = cases["Rot.compose[doc]"], cases["Pose.inverse[doc]"]
    # the objects are rebuilt in the graph from the tensors the example built them from (a = Rot.identity() from
    # Python values, b = Rot(angle); pose = Pose(Rot(angle), t)): those tensors are the inputs
    assert [t.tolist() for t in compose.inputs] == [[0.5]] and [t.tolist() for t in inverse.inputs] == [[0.5],
                                                                                                      [1.0, 2.0]]
    held = flatten_outputs(inverse.target(*inverse.inputs, **inverse.kwargs))  # (rot.angle, t): by name
    assert [t.tolist() for t in held] == [[-0.5], [-1.0, -2.0]]
    for spec in (compose, inverse):
        results = Measurement(spec, "cpu", 18, library_root("grouplib_kx"), dynamic=False).measure(["onnx", "export"])
        assert {path: r["status"] for path, r in results.items()} == {"onnx": "ok", "export": "ok"}, results
