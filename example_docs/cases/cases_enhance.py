"""Survey cases for ``kornia.enhance``: intensity adjustments (brightness,
contrast, saturation, hue, gamma, log, sigmoid), histogram operations
(equalize, CLAHE, soft histograms), normalisation, ZCA whitening, integral
images and the differentiable JPEG codec. Scalar factors are probed both baked
(Python float) and live (tensor) where the function accepts either."""

import torch

import kornia.enhance as KE
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand, rgb as _rgb
from _kornia_tests import from_tests

PKG = "kornia.enhance"
IMG = "(1,3,32,32)"


def c(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package=PKG, **kw)


def _factor(fname, baked, live, lo=None):
    """``fname(image, factor)`` probed with the factor baked and live."""
    fn = getattr(KE, fname)
    return [
        c(f"{fname}[baked factor]", fn, [_rgb()], {"factor": baked}, note=f"image live {IMG}; factor={baked} baked"),
        c(f"{fname}[live factor]", fn, [_rgb(), torch.tensor([live])],
          note=f"image live {IMG}; factor live (1,) = {live}"),
    ]


def _zca_fitted():
    zca = KE.ZCAWhitening(dim=0)
    zca.fit(_rand(16, 8, seed=6))
    return zca


HAND = [
    *_factor("adjust_brightness", 0.2, 0.3),
    *_factor("adjust_contrast", 0.7, 1.3),
    *_factor("adjust_saturation", 0.5, 1.5),
    *_factor("adjust_hue", 0.3, -0.4),
    c("adjust_gamma[baked]", KE.adjust_gamma, [_rgb()], {"gamma": 2.2, "gain": 1.0},
      note=f"image live {IMG}; gamma=2.2, gain=1.0 baked"),
    c("adjust_gamma[live]", KE.adjust_gamma, [_rgb(), torch.tensor([0.8]), torch.tensor([1.1])],
      note=f"image live {IMG}; gamma live (1,), gain live (1,)"),
    c("adjust_log", KE.adjust_log, [_rgb()], {"gain": 1.0, "inv": False},
      note=f"image live {IMG}; gain=1, inv=False baked"),
    c("add_weighted[live weights]", KE.add_weighted,
      [_rgb(0), torch.tensor(0.6), _rgb(1), torch.tensor(0.4), torch.tensor(0.05)],
      note=f"src1, src2 live {IMG}; alpha, beta, gamma live 0-d tensors"),
    c("invert", KE.invert, [_rgb(), torch.tensor([1.0])], note=f"image live {IMG}; max_val live (1,)"),
    c("posterize[baked bits]", KE.posterize, [_rgb()], {"bits": 3}, note=f"image live {IMG}; bits=3 baked"),
    c("posterize[live bits]", KE.posterize, [_rgb(), torch.tensor([4])],
      note=f"image live {IMG}; bits live int64 (1,)"),
    c("solarize", KE.solarize, [_rgb()], {"thresholds": 0.5, "additions": 0.1},
      note=f"image live {IMG}; thresholds=0.5, additions=0.1 baked"),
    c("sharpness", KE.sharpness, [_rgb()], {"factor": 0.5}, note=f"image live {IMG}; factor=0.5 baked"),
    c("equalize", KE.equalize, [_rgb()], note=f"image live {IMG}"),
    c("equalize_clahe[fast]", KE.equalize_clahe, [_rgb()], {"clip_limit": 40.0, "grid_size": (4, 4)},
      note=f"image live {IMG}; clip_limit=40, grid_size=(4,4) baked; histogram via torch.histc-like path"),
    c("equalize_clahe[differentiable]", KE.equalize_clahe, [_rgb()],
      {"clip_limit": 40.0, "grid_size": (4, 4), "slow_and_differentiable": True},
      note=f"image live {IMG}; clip_limit=40, grid_size=(4,4), slow_and_differentiable=True baked"),
    c("histogram", KE.histogram, [_rand(2, 64, seed=3), torch.linspace(0, 1, 16), torch.tensor(0.05)],
      note="samples live (2,64); bins live (16,); bandwidth live 0-d"),
    c("image_histogram2d", KE.image_histogram2d, [_rand(1, 1, 16, 16, seed=5)],
      {"min": 0.0, "max": 1.0, "n_bins": 32, "return_pdf": True},
      note="image live (1,1,16,16); min=0, max=1, n_bins=32, return_pdf=True baked; returns (hist, pdf)"),
    c("normalize", KE.normalize, [_rgb(), torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])],
      note=f"image live {IMG}; mean and std live (3,)"),
    c("zca_whiten", KE.zca_whiten, [_rand(16, 8, seed=6)], {"dim": 0},
      note="data live (16,8); dim=0 baked; uses torch.linalg.svd"),
    c("ZCAWhitening", _zca_fitted(), [_rand(16, 8, seed=11)],
      note="nn.Module fitted eagerly on a (16,8) sample (whitening matrix held as constants); data live (16,8)"),
    c("integral_image", KE.integral_image, [_rgb()], note=f"image live {IMG}"),
    c("jpeg_codec_differentiable", KE.jpeg_codec_differentiable, [_rgb(), torch.tensor([50.0])],
      note=f"image live {IMG}; jpeg_quality live (1,); default quantisation tables", atol=2e-3),
]


# The adjustments probed again as shape and dtype variants, factors baked.
VARIANT_ADJUSTMENTS = [
    ("adjust_brightness", {"factor": 0.2}), ("adjust_contrast", {"factor": 1.5}),
    ("adjust_gamma", {"gamma": 2.0}), ("adjust_saturation", {"factor": 1.5}),
    ("adjust_hue", {"factor": 0.5}), ("invert", {}), ("equalize", {}), ("posterize", {"bits": 4}),
    ("solarize", {"thresholds": 0.5}), ("sharpness", {"factor": 0.5}), ("normalize_min_max", {}),
]


def _variants(suffix, image, described):
    """``fname`` + ``suffix`` for every adjustment in VARIANT_ADJUSTMENTS on ``image()`` (a fresh one per case)."""
    return [c(f"{fname}{suffix}", getattr(KE, fname), [image()], kwargs,
              note=f"image live {described}; " + (", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "defaults")
              + (" baked" if kwargs else ""))
            for fname, kwargs in VARIANT_ADJUSTMENTS if hasattr(KE, fname)]


# a batch of four non-square images
# the raw adjustments take an image already in HSV (hue in radians, saturation in [0, 1])
_HSV = torch.cat([_rand(1, 1, 32, 32, seed=27, hi=6.2831), _rand(1, 2, 32, 32, seed=28)], 1)
HAND += [
    c("adjust_hue_raw", KE.adjust_hue_raw, [_HSV, torch.tensor([0.5])],
      note="HSV image live (1,3,32,32); factor live (1,) = 0.5 rad"),
    c("adjust_saturation_raw", KE.adjust_saturation_raw, [_HSV, torch.tensor([1.5])],
      note="HSV image live (1,3,32,32); factor live (1,) = 1.5"),
    c("Threshold", KE.Threshold(0.5, 1.0), [_rgb()],
      note=f"nn.Module; image live {IMG}; thresh=0.5, maxval=1, THRESH_BINARY held"),
]
HAND += _variants("[batch=4][48x64]", lambda: _rand(4, 3, 48, 64, seed=23), "(4,3,48,64)")
# float64: ONNX Runtime implements fewer kernels for doubles than for floats
HAND += _variants("[float64]", lambda: _rand(1, 3, 32, 32, seed=26).double(), "(1,3,32,32) float64")

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings(PKG)
CASES = HAND + DOC + from_tests(PKG, "enhance", HAND, DOC)
