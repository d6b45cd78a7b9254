"""Tiny torch-only cases that behave as MONAI 1.6.1 did in the survey of issue 13 (checked with plain
scripts on torch 2.13):

* ``dict_only``: a module whose only input is a dict (MONAI's FeaturePyramidNetwork): ``torch.onnx.export``
  reads a trailing dict in ``args`` as keyword arguments and fails with "missing a required argument";
* ``sigma_kernel``: a kernel whose size comes from ``float(self.sigma)`` (MONAI's GaussianFilter):
  ``torch.compile(fullgraph=True, backend="eager")`` captures it whole, the default backend raises
  InductorError (GuardOnDataDependentSymNode), ``torch.export`` fails on the ``.item()``;
* ``complex_unsqueeze``: an FFT that unsqueezes a complex tensor (MONAI's HilbertTransform): no ONNX lowering
  of ``aten.unsqueeze`` for a complex-valued input;
* ``as_tensor_of_scalars``: ``torch.as_tensor`` of a tuple of 0-d tensors (MONAI's median_filter): fake
  tensors hold no data, every path fails;
* ``tagged_subclass``: returns a Tensor subclass made with ``as_subclass`` (MONAI's MetaTensor);
* a random operator whose sampling asserts a Python-int batch size (kornia's RandomAffine[random]):
  ``torch.export`` with a dynamic batch raises in the library ("Got s38"), so it works only at a fixed batch;
* ``resized_unless_onnx``: returns its input unchanged while exported to ONNX, and warns (kornia's
  ResizePostProcessor): the ONNX cell is a mismatch that quotes the library's warning.
"""

from __future__ import annotations

import warnings

import torch

from sphinx_kexport.probe import case

PKG = "probe_cases.edge_statuses"


class DictOnly(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = torch.nn.Conv2d(2, 2, 1)
        with torch.no_grad():  # fixed weights: the repro snippet rebuilds exactly what was probed
            self.mix.weight.fill_(0.5)
            self.mix.bias.zero_()

    def forward(self, levels):
        return {name: self.mix(level) for name, level in levels.items()}


class SigmaKernel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sigma = [torch.nn.Parameter(torch.tensor(1.0), requires_grad=False)]  # a list, as MONAI keeps it
        self.register_parameter("sigma_0", self.sigma[0])

    def forward(self, x):
        sigma = torch.as_tensor(self.sigma[0], dtype=torch.float, device=self.sigma[0].device)
        tail = int(max(float(sigma) * 3.0, 0.5) + 0.5)  # the kernel size from a tensor value
        k = torch.arange(-tail, tail + 1, dtype=torch.float)
        t = 0.70710678 / torch.abs(sigma)
        k = (0.5 * ((t * (k + 0.5)).erf() - (t * (k - 0.5)).erf())).clamp(min=0)
        return torch.nn.functional.conv1d(x, (k / k.sum()).view(1, 1, -1), padding=tail)


def complex_unsqueeze(x):
    spectrum = torch.fft.fft(x, dim=-1)
    return torch.fft.ifft(spectrum.unsqueeze(0), dim=-1).abs()[0]


def as_tensor_of_scalars(x):
    scale = torch.as_tensor((x.amax(), x.amin()))  # a tensor built from 0-d tensors
    return x * scale.sum()


class Tagged(torch.Tensor):
    """A tensor subclass that carries nothing; the library wraps its outputs in it."""


def tagged_subclass(x):
    return (x * 2).as_subclass(Tagged)


def _check_batch(batch_size):
    if not (isinstance(batch_size, int) and batch_size >= 0):
        raise AssertionError(f"`batch_size` shall be a positive integer. Got {batch_size}.")


def noisy_sample(x):
    _check_batch(x.shape[0])  # as kornia's param validation does
    return x + 0.1 * torch.rand(x.shape[0], 1, 1, 1)


def resized_unless_onnx(x):
    if torch.onnx.is_in_onnx_export():
        warnings.warn("not supported in ONNX export: the output is not resized", stacklevel=2)
        return x
    return torch.nn.functional.interpolate(x, scale_factor=2.0)


levels = {"p3": torch.rand(1, 2, 8, 8), "p4": torch.rand(1, 2, 4, 4)}
torch.manual_seed(5)

CASES = [
    case("dict_only", DictOnly().eval(), [levels], package=PKG),
    case("sigma_kernel", SigmaKernel().eval(), [torch.rand(1, 1, 32)], package=PKG, batch=None),
    case("complex_unsqueeze", complex_unsqueeze, [torch.rand(1, 1, 16)], package=PKG, batch=None),
    case("as_tensor_of_scalars", as_tensor_of_scalars, [torch.rand(2, 3)], package=PKG, batch=None),
    case("tagged_subclass", tagged_subclass, [torch.rand(2, 3)], package=PKG, batch=None),
    case("noisy_sample_with_a_name_longer_than_the_progress_column[random]", noisy_sample,
         [torch.rand(2, 3, 4, 4)], package=PKG, check=False),
    case("resized_unless_onnx", resized_unless_onnx, [torch.rand(1, 1, 4, 4)], package=PKG, batch=None),
]
