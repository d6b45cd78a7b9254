"""Survey cases for ``kornia.morphology``: dilation, erosion and the composite
operators (opening, closing, gradient, top/bottom hat), per engine ('unfold',
'convolution', 'shift') and border mode, plus morphological reconstruction.
The structuring element (kernel) is a live tensor; engine and border are baked.
The kernel has no batch dimension (``batch=(0, None)``): by default every
input of rank 2 or more would be, and the image's and kernel's dimension 0
disagree."""

import torch

import kornia.morphology as KM
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand
from _kornia_tests import from_tests

PKG = "kornia.morphology"
IMG = "(1,3,32,32)"


def c(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package=PKG, **kw)


def _img():
    return _rand(1, 3, 32, 32, seed=0)


KERNEL = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])


def _op(fname, variant="", **kwargs):
    baked = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "engine='auto', border_type='geodesic' (defaults)"
    name = f"{fname}[{variant}]" if variant else fname
    return c(name, getattr(KM, fname), [_img(), KERNEL.clone()], kwargs, batch=(0, None),
             note=f"image live {IMG}; kernel live (3,3) cross; {baked} baked")


HAND = [
    _op("dilation", "unfold", engine="unfold"),
    _op("dilation", "convolution", engine="convolution"),
    _op("dilation", "shift", engine="shift"),
    _op("dilation", "constant border", border_type="constant", border_value=0.5),
    _op("erosion", "unfold", engine="unfold"),
    _op("opening"),
    _op("closing"),
    _op("gradient"),
    _op("top_hat"),
    _op("bottom_hat"),
    c("reconstruction[fixed iterations]", KM.reconstruction, [_img() * 0.5, _img()], {"num_iters": 4},
      note=f"seed and mask live {IMG}; default 3x3 kernel; method='dilation', num_iters=4 baked"),
    c("reconstruction[until stable]", KM.reconstruction, [_img() * 0.5, _img()],
      note=f"seed and mask live {IMG}; num_iters=None: data-dependent convergence loop"),
]


# Every operator on a batch of four non-square grayscale images, with a live 3x3 square kernel.
HAND += [c(f"{fname}[batch=4][48x64]", getattr(KM, fname), [_rand(4, 1, 48, 64, seed=24), torch.ones(3, 3)],
           batch=(0, None), note="image live (4,1,48,64); kernel live (3,3) square; defaults")
         for fname in ("dilation", "erosion", "opening", "closing", "gradient", "top_hat", "bottom_hat")]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings(PKG)
CASES = HAND + DOC + from_tests(PKG, "morphology", HAND, DOC)
