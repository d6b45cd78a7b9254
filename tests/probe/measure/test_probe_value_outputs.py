"""A call that returns a value object (kornia's So3, Hyperplane, NamedPose: a module or a plain object that
holds tensors) is read by attribute names learnt from its eager result, so that the capture reads constants.

Walking ``vars(result)`` inside the capture was itself a graph break under torch 2.9.1's dynamo ("does not
know how to trace method `items` of class <unknown type>"): every kornia Lie group, camera and pose case read
``ok-breaks`` there although the call compiles in one graph (a plain script of kornia's ``So3.rot_z`` and
``Hyperplane.from_vector`` on 2.9.1: one graph; the probe's compile step on the same call: 1 break, and one
graph since). torch 2.13 traces the walk, so here the tests show the reading itself.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

from sphinx_kexport.probe import case  # noqa: E402
from sphinx_kexport.probe.measure.output_leaves import flatten_outputs  # noqa: E402
from sphinx_kexport.probe.measure.locate import library_root  # noqa: E402
from sphinx_kexport.probe.measure.measurement import Measurement  # noqa: E402


class Rotation(torch.nn.Module):
    """A value held in a module, as kornia's Lie groups are: a parameter eagerly, a plain attribute when
    built inside a capture."""

    def __init__(self, angle):
        super().__init__()
        self.angle = torch.nn.Parameter(angle) if not torch.compiler.is_compiling() else angle
        self.matrix = torch.stack([angle.cos(), -angle.sin(), angle.sin(), angle.cos()], -1)


class Pose:
    """A plain object that holds tensors, one of them optional."""

    def __init__(self, rotation, translation, scale=None):
        self.rotation, self.translation, self.scale = rotation, translation, scale


def rotation(angle):
    return Rotation(angle * 2)


def pose(angle, shift):
    return Pose(Rotation(angle), shift + 1)


def test_a_value_module_is_read_the_same_eagerly_and_inside_the_capture():
    angle = torch.tensor([0.3, 0.5])
    eager = flatten_outputs(rotation(angle))
    torch._dynamo.reset()
    captured = torch.compile(lambda a: flatten_outputs(rotation(a)), fullgraph=True, backend="eager")(angle)
    assert len(eager) == len(captured) == 2
    assert all(torch.equal(a.detach(), b) for a, b in zip(eager, captured))


@pytest.mark.parametrize("fn, inputs", [(rotation, [torch.tensor([0.3, 0.5])]),
                                        (pose, [torch.tensor([0.3]), torch.tensor([1.0, 2.0])])])
def test_a_call_returning_a_value_object_compiles_in_one_graph(fn, inputs):
    spec = case(fn.__name__, fn, inputs, package="tests")
    compiled = Measurement(spec, "cpu", 18, library_root(""), dynamic=False).measure(["compile"])["compile"]
    assert compiled["status"] == "ok" and compiled.get("graph_breaks", 0) == 0, compiled


def test_an_attribute_a_later_instance_holds_is_read_too():
    first = flatten_outputs(Pose(torch.ones(1), torch.zeros(2)))
    later = flatten_outputs(Pose(torch.ones(1), torch.zeros(2), scale=torch.full((3,), 2.0)))
    assert [t.shape for t in first] == [(1,), (2,)]
    assert [t.shape for t in later] == [(1,), (2,), (3,)]
