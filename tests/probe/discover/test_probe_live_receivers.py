"""A method of an object the example built from tensors is probed on those tensors: the object is rebuilt
inside the graph, the tensors are the graph's inputs; a case keeps a constant graph only when no tensor can
reach it, and its note says why.

A tiny library is written into tmp_path; its docstring example runs through the real discovery, and the
cases through the probe's own wrapper, torch.export and the ONNX exporter.
"""

from __future__ import annotations

import pytest

from test_probe_docstrings_scale import write_library

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

SPIN = '''
    import torch


    class Spin:
        """A planar rotation held as a unit complex number (a complex constant no ONNX graph can hold).

        >>> s = Spin.exp(torch.tensor([0.5, 1.0]))
        >>> s.log()
        tensor([0.5000, 1.0000])
        >>> fixed = Spin.identity(2)
        >>> fixed.log()
        tensor([0., 0.])
        >>> moved = Spin.exp(torch.tensor([0.25]))
        >>> _ = moved.z.mul_(1j)
        >>> moved.turned(torch.tensor([0.5]))
        tensor([2.3208])
        >>> Spin(torch.complex(torch.tensor([0.6]), torch.tensor([0.8]))).turned(torch.tensor([0.1]))
        tensor([1.0273])
        """

        def __init__(self, z):
            self.z = z

        def __repr__(self):  # two Spins differ by their z (tests' calls are told apart by what they are bound to)
            return f"Spin({self.z})"

        @classmethod
        def exp(cls, theta):
            return cls(torch.complex(torch.cos(theta), torch.sin(theta)))

        @classmethod
        def identity(cls, n):
            return cls(torch.ones(n, dtype=torch.complex64))

        def log(self):
            return torch.atan2(self.z.imag, self.z.real)

        def turned(self, delta):
            return self.log() + delta
    '''


@pytest.fixture(scope="module")
def spin_cases(tmp_path_factory):
    write_library(tmp_path_factory.mktemp("live"), "livelib_kx", {"__init__.py": SPIN})
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    found = discover("livelib_kx", time_limit=10)
    return {(c.ref.rsplit(".", 1)[-1], tuple(tuple(t.shape) for t in c.inputs)): c for c in found.cases}


def _user_inputs(spec):
    from torch.export.graph_signature import InputKind

    from sphinx_kexport.probe.measure.case_run import CaseRun

    case_run = CaseRun(spec, "cpu")
    program = torch.export.export(case_run.wrapper(), case_run.inputs())
    return [s.arg.name for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]


def test_a_method_of_an_object_built_from_a_tensor_takes_that_tensor_as_its_graph_input(spin_cases):
    log = spin_cases[("log", ((2,),))]  # s.log(): s = Spin.exp(theta), theta live
    assert torch.equal(log.inputs[0], torch.tensor([0.5, 1.0]))
    assert "the Spin built in the example by Spin.exp(theta) is rebuilt in the graph; self.theta (2) live" in log.note
    assert torch.allclose(log.target(torch.tensor([0.25, -0.5])), torch.tensor([0.25, -0.5]))  # rebuilt, not held
    assert _user_inputs(log) == ["in0"]
    from sphinx_kexport.probe.measure.locate import library_root
    from sphinx_kexport.probe.measure.measurement import Measurement

    onnx = Measurement(log, "cpu", 18, library_root("livelib_kx"), dynamic=False).measure(["onnx"])["onnx"]
    assert onnx["status"] == "ok", onnx  # the complex number lives inside the graph, built from theta
    assert "folded" not in onnx.get("detail", "")
    # its repro builds the object from the live tensor through the library's public names
    namespace = {}
    exec(log.code, namespace)
    assert torch.allclose(namespace["target"](torch.tensor([0.3])), torch.tensor([0.3]))


def test_the_object_s_tensors_come_before_the_call_s_own(spin_cases):
    turned = spin_cases[("turned", ((1,), (1,)))]  # Spin(torch.complex(re, im)).turned(delta)
    assert turned.note.endswith("the Spin built in the example by Spin(z) is rebuilt in the graph; self.z (1), "
                                "delta (1) live"), turned.note
    assert [t.dtype for t in turned.inputs] == [torch.complex64, torch.float32]
    assert _user_inputs(turned) == ["in0", "in1"]


def test_a_case_keeps_a_constant_graph_only_when_no_tensor_reaches_it_and_says_why(spin_cases):
    fixed = spin_cases[("log", ())]  # fixed = Spin.identity(2): built from Python values only
    assert fixed.note.endswith("the Spin built in the example is baked, since it was built from Python values "
                               "only, by Spin.identity(2); no tensor input (a graph of the held tensors and "
                               "constants)"), fixed.note
    assert _user_inputs(fixed) == []
    # moved's tensor was changed in place after it was built: rebuilt from its tensors it is another object, so
    # it is held as called (only the call's own tensor is live), and the note says why
    moved = spin_cases[("turned", ((1,),))]
    assert moved.note.endswith("the Spin built in the example is baked, since rebuilt from its tensors it is not "
                               "the object called (changed in place after it was built, or built at random); "
                               "delta (1) live"), moved.note
    assert torch.allclose(moved.target(torch.tensor([0.5])), torch.tensor([2.3208]), atol=1e-4)


def test_a_test_s_object_is_rebuilt_from_the_tensors_the_test_built_it_from(tmp_path, monkeypatch):
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", "off")
    write_library(tmp_path, "livesuite_kx", {"__init__.py": SPIN.replace(">>>", "...")})
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_spin.py").write_text(
        "import torch\nfrom livesuite_kx import Spin\n\n\n"
        "def test_log():\n    s = Spin(torch.complex(torch.tensor([0.6]), torch.tensor([0.8])))\n"
        "    assert s.log().shape == (1,)\n    assert Spin.identity(3).log().shape == (3,)\n")
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    found = discover_suite("livesuite_kx", tmp_path / "tests", time_limit=10, jobs=1)
    cases = {c.name: c for c in found.cases}
    log = cases["Spin.log[test]"]  # built by the test's own Spin(z): z is the live input
    assert log.note.endswith("the Spin built in the test by Spin(z) is rebuilt in the graph; self.z (1) live")
    assert [t.dtype for t in log.inputs] == [torch.complex64] and _user_inputs(log) == ["in0"]
    namespace = {}
    exec(log.code, namespace)  # its repro: target(z) builds the Spin from z
    assert torch.allclose(namespace["target"](*log.inputs), torch.atan2(torch.tensor([0.8]), torch.tensor([0.6])))
    fixed = cases["Spin.log[test 2]"]  # Spin.identity(3): nothing to lift
    assert fixed.inputs == [] and "since it was built from Python values only, by Spin.identity(3)" in fixed.note
