"""The repro of a module case asks whether ``type(module)()`` rebuilds it; building that default instance
must not reach the network.

Kornia's ``DeFMO()`` fetches pretrained weights by default: the check reached for the network from the
inventory's child, where kornia's downloader retries a failed host lookup with back-off.
"""

from __future__ import annotations

import textwrap

import pytest

torch = pytest.importorskip("torch")

from sphinx_kexport.probe.cases.call_source import call_source  # noqa: E402
from sphinx_kexport.probe.cases.loader import load_inventory, resolve_sources  # noqa: E402

CASE_MODULE = '''
    import socket

    import torch
    from sphinx_kexport.probe import case

    ATTEMPTS = []  # what each download attempt of a default instance ran into


    class Pretrained(torch.nn.Module):
        def __init__(self, pretrained=True):
            super().__init__()
            self.linear = torch.nn.Linear(2, 2)
            if pretrained:
                try:
                    socket.getaddrinfo("weights.example.invalid", 443)
                except BaseException as exc:
                    ATTEMPTS.append(type(exc).__name__)
                    raise
                ATTEMPTS.append("reached the network")

        def forward(self, x):
            return self.linear(x)


    class Plain(torch.nn.Module):
        def forward(self, x):
            return x * 2


    class _Seeded(torch.nn.Module):  # the case module's wrapper: Pretrained without weights, seeded
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.inner = Pretrained(pretrained=False)

        def forward(self, x):
            return self.inner(x)


    CASES = [
        case("without_weights", Pretrained(pretrained=False), [torch.ones(1, 2)],
             ref="default_instance_cases.Pretrained", package="torch"),
        case("plain", Plain(), [torch.ones(1, 2)], ref="default_instance_cases.Plain", package="torch"),
        case("wrapper", _Seeded(), [torch.ones(1, 2)], ref="default_instance_cases.Pretrained", package="torch"),
    ]
'''


@pytest.fixture
def loaded(tmp_path, monkeypatch):
    path = tmp_path / "default_instance_cases.py"
    path.write_text(textwrap.dedent(CASE_MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))  # the repro imports the module by its name
    specs, _ = load_inventory(resolve_sources([str(path)], tmp_path))
    return {spec.name: spec for spec in specs}


def _module_of(spec):
    import sys

    return sys.modules[type(spec.target).__module__]


def test_a_default_that_downloads_is_stopped_at_once_and_not_written_as_the_case(loaded):
    spec = loaded["without_weights"]
    attempts = _module_of(spec).ATTEMPTS
    attempts.clear()
    source = call_source(spec)
    assert attempts == ["DownloadBlocked"], attempts  # tried, and stopped before any host lookup
    assert "Pretrained()" not in source, source
    # rebuilt from the case's own expression, under the seed the module was imported with: the same weights
    assert "target = Pretrained(pretrained=False)" in source, source
    namespace: dict = {}
    exec(source, namespace)
    assert torch.equal(namespace["fn"](*namespace["inputs"]), spec.target(*spec.inputs))


def test_a_module_its_default_rebuilds_is_still_written_as_the_default(loaded):
    source = call_source(loaded["plain"])
    assert "default_instance_cases.Plain()" in source, source


def test_a_wrapper_its_default_rebuilds_is_written_as_the_wrapper_not_as_the_ref(loaded):
    # _Seeded() rebuilds the probed module, but ``Pretrained()`` (the ref's default) is another model: it
    # downloads weights (kornia's LoFTR wrapped by the example's _LoFTR)
    source = call_source(loaded["wrapper"])
    assert "default_instance_cases.Pretrained()" not in source, source
    assert "class _Seeded(torch.nn.Module):" in source and "target = _Seeded()" in source, source
    namespace: dict = {}
    exec(source, namespace)
    spec = loaded["wrapper"]
    assert torch.equal(namespace["fn"](*namespace["inputs"]), spec.target(*spec.inputs))


NESTED_CONFIG = '''
    from dataclasses import dataclass, field

    import torch
    from sphinx_kexport.probe import case


    @dataclass
    class Inner:
        channels: int = 2
        scale: float = 0.5


    @dataclass
    class Outer:
        inner: Inner = field(default_factory=Inner)
        name: str = "outer"


    @dataclass
    class Config:  # kornia's SOLD2 holds DetectorCfg, which holds BackboneCfg
        outer: Outer = field(default_factory=Outer)


    class Configured(torch.nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.linear = torch.nn.Linear(2, 2)

        def forward(self, x):
            return self.linear(x) * self.config.outer.inner.scale


    def _seeded(make):
        torch.manual_seed(0)
        return make().eval()


    CASES = [case("configured", _seeded(lambda: Configured(Config())), [torch.ones(1, 2)],
                  ref="nested_config_cases.Configured", package="torch")]
'''


def test_a_model_whose_config_nests_dataclasses_is_rebuilt_from_the_case(tmp_path, monkeypatch):
    path = tmp_path / "nested_config_cases.py"
    path.write_text(textwrap.dedent(NESTED_CONFIG), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    specs, _ = load_inventory(resolve_sources([str(path)], tmp_path))
    spec = specs[0]
    source = call_source(spec)
    assert "cannot rebuild" not in source and "target = _seeded(lambda: Configured(Config()))" in source, source
    namespace: dict = {}
    exec(source, namespace)
    assert torch.equal(namespace["fn"](*namespace["inputs"]), spec.target(*spec.inputs))
