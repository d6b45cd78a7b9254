"""One case set under several torch versions: a case module that needs a newer torch than the one running is
skipped for this version with a line that says why; the run goes on with the other modules."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

CASES = Path(__file__).resolve().parents[1] / "probe_cases"


def raised(code: str) -> BaseException:
    try:
        exec(code, {})
    except BaseException as exc:  # noqa: BLE001 - the real exception torch raises is the input
        return exc
    raise AssertionError(f"{code!r} raised nothing")


@pytest.mark.parametrize("code, lacking", [
    ("import torch; torch.nn.attention.a_future_function", "`torch.nn.attention.a_future_function`"),
    ("from torch.export import AFutureDim", "`torch.export.AFutureDim`"),
    ("import torch.a_future_submodule", "`torch.a_future_submodule`"),
    ("import numpy; numpy.a_future_function", ""),  # another library's gap is the case module's mistake
    ("import a_module_nobody_has", ""),
    ("import torch; torch.rand(2).a_future_method()", ""),  # a tensor's attribute: a mistake, not a version
])
def test_what_a_torch_lacks_is_read_from_the_real_exception(code, lacking):
    from sphinx_kexport.probe.cases.loader import missing_from_torch

    assert missing_from_torch(raised(code)) == lacking


def test_a_module_for_a_newer_torch_is_skipped_and_the_others_are_described(tmp_path):
    from sphinx_kexport.probe.cases.loader import resolve_sources
    from sphinx_kexport.probe.run.inventory import build_inventory

    lines: list[str] = []
    sources = resolve_sources([str(CASES / "future_torch_cases.py"), str(CASES / "reuse_cases.py")], tmp_path)
    inventory = build_inventory(sources, jobs=1, rediscover=False, devices=["cpu"], opset=18, on_line=lines.append)
    assert inventory.cases and all(c.name != "future_attention" for c in inventory.cases)
    assert inventory.torch_version == torch.__version__  # read although the first module was skipped
    skipped = [m for m in inventory.modules if m.skipped]
    assert [(m.label.endswith("future_torch_cases.py"), m.cases) for m in skipped] == [(True, 0)]
    assert skipped[0].skipped.endswith(
        f"skipped under torch {torch.__version__}: it needs `torch.nn.attention.a_function_of_a_future_torch`, "
        "which this torch does not have")
    assert any("skipped under torch" in line for line in lines)


def test_the_parent_names_torch_as_torch_names_itself_not_as_its_distribution_does(tmp_path):
    """The default builds on the package index are ``2.9.1`` to pip and ``2.9.1+cu128`` to ``torch.__version__``
    (which the snapshot's header keeps): a stand-in torch installed like one, found first on the path, is read
    by its version file, without being imported."""
    import json
    import subprocess
    import sys

    package = tmp_path / "torch"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('the parent must not import torch')\n")
    (package / "version.py").write_text("__version__ = '2.9.1+cu128'\n")
    metadata = tmp_path / "torch-2.9.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.9.1\n")
    code = ("import importlib.metadata, json, sys; from sphinx_kexport.probe.measure.environment import tool_versions; "
            "print(json.dumps([tool_versions()['torch'], importlib.metadata.version('torch'), 'torch' in sys.modules]))")
    repo = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": f"{tmp_path}{__import__('os').pathsep}{repo}", "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["2.9.1+cu128", "2.9.1", False]
