"""cases_from_docstrings and `discover` on a tiny library nobody wrote cases for (tests/probe/probe_cases/doclib).

Each docstring example of doclib exercises one behaviour (see its docstrings);
the tests run the real examples, the real `discover` command and a real probe
run of the discovered cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_kexport.probe.discover.sandbox import HANG_FACTOR

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
TESTS = REPO / "tests" / "probe"
LIB = "probe_cases.doclib"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]))


@pytest.fixture(scope="module")
def found():
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    return discover(LIB, time_limit=2)


def by_ref(found):
    return {r.ref.removeprefix(LIB + "."): r for r in found.objects}


def test_each_object_yields_its_cases_or_a_reason(found):
    assert found.cache == "discovery cache off"  # KEXPORT_DISCOVERY_CACHE=off (tests/probe/conftest.py)
    reports = by_ref(found)
    assert {k: [c.name for c in r.cases] for k, r in reports.items() if r.cases} == {
        "Scaler": ["Scaler[doc]"], "blur_then_scale": ["blur_then_scale[doc]"], "jitter": ["jitter[doc]"],
        "mix": ["mix[doc]"], "scale": ["scale[doc]"], "shift": ["shift[doc]", "scale[doc 2]"],
        "checked": ["checked[doc]"]}
    assert {k: r.skip for k, r in reports.items() if not r.cases} == {
        "broken": "raised", "fetch_weights": "download", "make_ramp": "no tensor call", "slow": "time limit",
        "refuse": "raised", "misaligned": "unparsable"}
    # a call the example shows failing (a Traceback) is no case: it would only fail eagerly
    assert reports["checked"].dropped == [f"{LIB}.checked raised ValueError: checked needs a 2-D tensor, got 1-D "
                                          "(the example shows it failing)"]
    assert [tuple(t.shape) for t in reports["checked"].cases[0].inputs] == [(2, 2)]
    assert reports["refuse"].detail == (f"{LIB}.refuse raised NotImplementedError: refuse is not implemented "
                                        "(the example shows it failing)")
    assert reports["misaligned"].detail.startswith(f"line 5 of the docstring for {LIB}.misaligned has inconsistent "
                                                   "leading whitespace")
    assert "TypeError" in reports["broken"].detail and "broken(torch.ones(2), 3)" in reports["broken"].detail
    assert "urlopen" in reports["fetch_weights"].detail
    # refused at the first lookup by the probe's block, not a network's error or time-out
    assert "network access blocked during discovery" in reports["fetch_weights"].detail
    # it only sleeps: no CPU time passes, so the wall-time guard stops it at HANG_FACTOR times the limit ("waited
    # past": the guard's words; the example's own 600 s sleep never ended)
    assert reports["slow"].seconds >= 2.0 * HANG_FACTOR
    assert reports["slow"].detail.startswith("waited past")


def test_a_case_has_the_arguments_the_example_passed(found):
    cases = {c.name: c for c in found.cases}
    scale = cases["scale[doc]"]
    assert scale.ref == f"{LIB}.scale" and scale.package == LIB and scale.section == ""
    assert [tuple(t.shape) for t in scale.inputs] == [(2, 3)] and scale.kwargs == {"factor": 3.0}
    assert scale.note == f"from the docstring example of `{LIB}.scale`; x (2,3) live; factor=3.0 baked"
    second = cases["scale[doc 2]"]  # the second call of shift's example, with the tensor shift returned
    assert second.note.startswith(f"from the docstring example of `{LIB}.shift`")
    assert torch.equal(second.inputs[0], torch.full((1, 4), 1.5)) and second.kwargs == {"factor": 0.5}
    # the library's own inner call to scale is not a case: blur_then_scale yields one case
    assert [c.ref for c in by_ref(found)["blur_then_scale"].cases] == [f"{LIB}.blur_then_scale"]
    assert cases["Scaler[doc]"].target.factor.item() == 4.0 and "nn.Module built in the example" in \
        cases["Scaler[doc]"].note


def test_random_ops_are_unchecked_and_the_others_checked(found):
    assert {c.name for c in found.cases if not c.check} == {"jitter[doc]"}
    assert "random" in next(c for c in found.cases if c.name == "jitter[doc]").note


@pytest.mark.parametrize("name", ["scale[doc]", "scale[doc 2]", "mix[doc]", "Scaler[doc]", "jitter[doc]"])
def test_code_rebuilds_target_and_inputs_as_pasted(found, name):
    spec = next(c for c in found.cases if c.name == name)
    script = (f"import torch\n{spec.code}"
              f"out = target(*inputs, **{spec.kwargs!r})\nprint(list(out.shape))\n")
    done = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, spec.code + done.stderr
    torch.manual_seed(0)
    expected = spec.target(*spec.inputs, **spec.kwargs)
    assert done.stdout.strip() == str(list(expected.shape))


def test_tensors_that_are_not_leading_are_passed_by_keyword(found):
    mix = next(c for c in found.cases if c.name == "mix[doc]")
    assert mix.kwargs == {"alpha": 0.25}
    a, b = mix.inputs
    assert torch.equal(mix.target(a, b, **mix.kwargs), 0.25 * a + 0.75 * b)


def test_fingerprints_are_identical_in_two_processes(found):
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint

    script = ("import json, sys; sys.path.insert(0, sys.argv[1])\n"
              "from sphinx_kexport.probe.cases.fingerprint import case_definition\n"
              "from sphinx_kexport.probe.base.reuse.decide import fingerprint\n"
              "from sphinx_kexport.probe import cases_from_docstrings\n"
              f"cases = cases_from_docstrings({LIB!r}, time_limit=2)\n"
              "print(json.dumps([[c.name, fingerprint(case_definition(c), 'cpu', 18, '1', {})] for c in cases]))\n")
    # this process's discovery (the module's) against a fresh interpreter's
    done = subprocess.run([sys.executable, "-c", script, str(TESTS)], env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    here = [[c.name, fingerprint(case_definition(c), "cpu", 18, "1", {})] for c in found.cases]
    assert json.loads(done.stdout) == here and len(here) == 8


def test_merge_cases_keeps_the_hand_written_one(found):
    from sphinx_kexport.probe import case, merge_cases
    from probe_cases.doclib import scale

    hand = [case("scale[hand]", scale, [torch.rand(2, 3)], {"factor": 2.0}, package=LIB)]
    merged = merge_cases(hand, found.cases)
    assert [c.name for c in merged][:1] == ["scale[hand]"]
    assert "scale[doc]" not in {c.name for c in merged}  # same ref, same input shapes (2,3)
    assert "scale[doc 2]" in {c.name for c in merged}  # same ref, other shapes (1,4)


def test_discover_command_lists_every_object_and_totals(tmp_path):
    hand = tmp_path / "hand_cases.py"
    hand.write_text("import torch\nfrom sphinx_kexport.probe import case\nfrom probe_cases.doclib import scale\n"
                    "CASES = [case('scale[hand]', scale, [torch.rand(2, 3)], {'factor': 2.0}, "
                    "package='probe_cases.doclib')]\n")
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", LIB, "--time-limit", "2",
                           "--cases", str(hand)], cwd=tmp_path, env=dict(ENV, KEXPORT_DISCOVERY_CACHE=str(tmp_path / "cache")),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"{LIB}.broken: no case: the example raised: TypeError" in out
    assert f"{LIB}.fetch_weights: no case: it tried to download" in out
    assert f"{LIB}.make_ramp: no case: no tensor call" in out
    assert f"{LIB}.slow: no case: it ran past the time limit" in out
    assert "scale[doc] -> probe_cases.doclib.scale [(2,3)]: repeats the hand-written 'scale[hand]'" in out
    assert "    mix[doc] -> probe_cases.doclib.mix [(2,2), (2,2)]" in out
    assert f"{LIB}.misaligned: no case: doctest cannot parse its docstring: line 5 of the docstring" in out
    assert f"    not a case: {LIB}.checked raised ValueError: checked needs a 2-D tensor, got 1-D" in out
    assert (f"{LIB}: 13 objects with examples, 7 cases (+1 repeating hand-written cases from {hand}); objects "
            "without a case: 1 no tensor call, 2 the example raised, 1 it tried to download, 1 it ran past the "
            "time limit, 1 doctest cannot parse its docstring, 1 repeats hand-written cases;") in out
    # progress on stderr as it goes: a line before anything is imported, then one per example
    progress = done.stderr.splitlines()
    assert progress[0].startswith(f"discovering {LIB}: importing it")
    lines = [line.strip() for line in progress if line.startswith("  [")]
    assert len(lines) == 12 and lines[0].startswith("[1/12] ") and lines[-1].startswith("[12/12] ")
    assert any(line.endswith(" s") and f"{LIB}.slow: no case (it ran past the time limit)" in line for line in lines)


def test_discover_of_a_package_that_does_not_import_says_so(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "no_such_pkg_xyz", "--no-cases"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "cannot import 'no_such_pkg_xyz'" in done.stderr and "Traceback" not in done.stderr


def test_discover_of_an_installed_package_that_fails_to_import_gives_its_error(tmp_path):
    (tmp_path / "brokenimport_kx").mkdir()
    (tmp_path / "brokenimport_kx" / "__init__.py").write_text(
        "raise ImportError('libtorchvision: operator torchvision::nms does not exist')\n")
    env = dict(ENV, PYTHONPATH=os.pathsep.join([str(tmp_path), ENV["PYTHONPATH"]]))
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "brokenimport_kx", "--no-cases"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert ("cannot import 'brokenimport_kx': it is installed, but importing it raises ImportError: "
            "libtorchvision: operator torchvision::nms does not exist") in done.stderr
    assert "Give the import name" not in done.stderr and "Traceback" not in done.stderr


def test_the_discovered_survey_runs_through_the_real_probe(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "support.json"
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "--cases",
                           str(TESTS / "probe_cases" / "doclib_cases.py"), "--library", "probe_cases", "--out",
                           str(out), "--jobs", "1", "--no-dynamic"], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = json.loads(out.read_text())
    status = {c["name"]: {p: r["status"] for p, r in c["results"]["cpu"].items()} for c in snapshot["cases"]}
    assert set(status) == {"Scaler[doc]", "blur_then_scale[doc]", "jitter[doc]", "mix[doc]", "scale[doc]",
                           "shift[doc]", "scale[doc 2]", "checked[doc]"}
    assert status["checked[doc]"] == {"onnx": "ok", "export": "ok", "compile": "ok"}  # only the call that works
    # the inventory child says each example as discovery runs it (the cache is off in the tests), on stderr
    ran = [line.split("doclib_cases.py ", 1)[1] for line in done.stderr.splitlines() if "doclib_cases.py [" in line]
    assert len(ran) == 12 and ran[0].startswith(f"[1/12] {LIB}.Scaler: 1 case, ")
    assert any(line.startswith(f"[9/12] {LIB}.refuse: no case (the example raised), ") for line in ran)
    # every object with an example but no case is in the snapshot, with why (the page lists them)
    without = {o["ref"].removeprefix(LIB + "."): (o["kind"], o["package"]) for o in snapshot["objects_without_cases"]}
    assert without == {"broken": ("raised", LIB), "refuse": ("raised", LIB), "fetch_weights": ("download", LIB),
                       "make_ramp": ("no tensor call", LIB), "slow": ("time limit", LIB),
                       "misaligned": ("unparsable", LIB)}
    # random: torch.compile draws as eager does (inductor's fallback_random) and is compared in full
    assert status["jitter[doc]"] == {"onnx": "ok-unverified", "export": "ok-unverified", "compile": "ok"}
    assert status["mix[doc]"] == {"onnx": "ok", "export": "ok", "compile": "ok"}


ALIASED = '''
import torch


class SEModule(torch.nn.Module):
    """Squeeze and excite, known by its alias (as timm's ``SqueezeExcite = SEModule``).

    >>> se = SqueezeExcite()
    >>> se(torch.ones(1, 2, 3, 3)).shape
    torch.Size([1, 2, 3, 3])
    """

    def forward(self, x):
        return x * torch.sigmoid(x.mean((2, 3), keepdim=True))


SqueezeExcite = SEModule


def gelu_tanh(x):
    """A function whose example uses its alias.

    >>> tanh_gelu(torch.ones(2)).shape
    torch.Size([2])
    """
    return torch.nn.functional.gelu(x, approximate="tanh")


tanh_gelu = gelu_tanh


def double(x):
    """Its example calls the function by its own name.

    >>> double(torch.ones(2))
    tensor([2., 2.])
    """
    return 2 * x


twice = double
'''


def test_a_case_is_named_and_linked_by_the_alias_its_example_uses(tmp_path):
    from sphinx_kexport.probe.discover.docstrings.docstrings import discover

    (tmp_path / "aliaslib_kx").mkdir()
    (tmp_path / "aliaslib_kx" / "__init__.py").write_text(ALIASED)
    sys.path.insert(0, str(tmp_path))
    try:
        found = discover("aliaslib_kx", time_limit=10)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("aliaslib_kx")]:
            del sys.modules[name]
    assert {c.name: c.ref for c in found.cases} == {
        "SqueezeExcite[doc]": "aliaslib_kx.SqueezeExcite", "tanh_gelu[doc]": "aliaslib_kx.tanh_gelu",
        "double[doc]": "aliaslib_kx.double"}
