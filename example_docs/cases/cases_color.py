"""Survey cases for ``kornia.color``: colour-space conversions (both directions),
Bayer/RAW demosaicing, YUV 4:2:0 / 4:2:2 sub-sampling, alpha handling, sepia and
colour maps. Functions are probed once each; variants cover alternative code
paths (CFA layouts, live vs baked scalars, the nn.Module wrappers)."""

import torch

import kornia.color as KC
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand, rgb as _rgb
from _kornia_tests import from_tests

PKG = "kornia.color"
IMG = "(1,3,32,32)"


def c(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package=PKG, **kw)


def _simple(fname, make=_rgb, shape=IMG, **kw):
    """A conversion that takes one live image and nothing else."""
    return c(fname, getattr(KC, fname), [make()], note=f"image live {shape}; no other arguments", **kw)


def _hsv():
    # h in [0, 2pi), s and v in [0, 1]
    x = _rand(1, 3, 32, 32, seed=3)
    return torch.cat([x[:, :1] * 6.2831, x[:, 1:]], dim=1)


def _hls():
    x = _rand(1, 3, 32, 32, seed=4)
    return torch.cat([x[:, :1] * 6.2831, x[:, 1:]], dim=1)


def _lab():
    x = _rand(1, 3, 32, 32, seed=5)
    return torch.cat([x[:, :1] * 100.0, x[:, 1:] * 100.0 - 50.0], dim=1)


def _yuv():
    x = _rand(1, 3, 32, 32, seed=7)
    return torch.cat([x[:, :1], x[:, 1:2] * 0.872 - 0.436, x[:, 2:] * 1.23 - 0.615], dim=1)


HAND = [
    _simple("rgb_to_grayscale"),
    c("rgb_to_grayscale[live weights]", KC.rgb_to_grayscale, [_rgb(), torch.tensor([0.2, 0.7, 0.1])],
      note=f"image live {IMG}; rgb_weights live (3,)"),
    c("RgbToGrayscale", KC.RgbToGrayscale(), [_rgb()], note=f"nn.Module; image live {IMG}"),
    _simple("grayscale_to_rgb", make=lambda: _rand(1, 1, 32, 32, seed=1), shape="(1,1,32,32)"),
    c("rgb_to_rgba[baked alpha]", KC.rgb_to_rgba, [_rgb()], {"alpha_val": 1.0},
      note=f"image live {IMG}; alpha_val=1.0 baked"),
    c("rgb_to_rgba[live alpha]", KC.rgb_to_rgba, [_rgb(), _rand(1, 1, 32, 32, seed=2)],
      note=f"image live {IMG}; alpha_val live (1,1,32,32)"),
    _simple("rgba_to_rgb", make=lambda: _rand(1, 4, 32, 32, seed=1), shape="(1,4,32,32)"),
    _simple("rgb_to_hsv"),
    _simple("hsv_to_rgb", make=_hsv),
    _simple("rgb_to_hls"),
    _simple("hls_to_rgb", make=_hls),
    _simple("rgb_to_lab"),
    _simple("lab_to_rgb", make=_lab),
    _simple("rgb_to_luv"),
    _simple("rgb_to_xyz"),
    _simple("rgb_to_yuv"),
    _simple("yuv_to_rgb", make=_yuv),
    c("rgb_to_yuv420", KC.rgb_to_yuv420, [_rgb()], note=f"image live {IMG}; returns (Y, UV) pair"),
    c("yuv420_to_rgb", KC.yuv420_to_rgb, [_rand(1, 1, 32, 32, seed=9), _rand(1, 2, 16, 16, seed=10) - 0.5],
      note="Y live (1,1,32,32); UV live (1,2,16,16)"),
    _simple("rgb_to_linear_rgb"),
    c("raw_to_rgb[BG]", KC.raw_to_rgb, [_rand(1, 1, 32, 32, seed=11)], {"cfa": KC.CFA.BG},
      note="raw image live (1,1,32,32); cfa=CFA.BG baked"),
    c("raw_to_rgb[RG]", KC.raw_to_rgb, [_rand(1, 1, 32, 32, seed=11)], {"cfa": KC.CFA.RG},
      note="raw image live (1,1,32,32); cfa=CFA.RG baked"),
    c("rgb_to_raw", KC.rgb_to_raw, [_rgb()], {"cfa": KC.CFA.GB}, note=f"image live {IMG}; cfa=CFA.GB baked"),
    c("sepia", KC.sepia, [_rgb()], {"rescale": True}, note=f"image live {IMG}; rescale=True baked"),
    c("apply_colormap", KC.apply_colormap, [_rand(1, 1, 32, 32, seed=13)],
      {"colormap": KC.ColorMap(base=KC.ColorMapType.viridis, num_colors=16)},
      note="grayscale image live (1,1,32,32) in [0,1]; colormap=ColorMap(viridis, 16 colours) baked"),
]


# Shape variants: a batch of four non-square images, and one image without a batch dimension (the
# conversions accept (*, 3, H, W)); a capture that specialises on the batch or on square images shows here.
SHAPE_VARIANTS = ["rgb_to_grayscale", "bgr_to_grayscale", "rgb_to_bgr", "bgr_to_rgb", "rgb_to_hsv", "rgb_to_hls",
                  "rgb_to_lab", "rgb_to_luv", "rgb_to_xyz", "xyz_to_rgb", "rgb_to_yuv", "rgb_to_ycbcr",
                  "ycbcr_to_rgb", "rgb_to_linear_rgb", "linear_rgb_to_rgb", "sepia"]
HAND += [c(f"{fname}[batch=4][48x64]", getattr(KC, fname), [_rand(4, 3, 48, 64, seed=20)],
           note="image live (4,3,48,64); no other arguments")
         for fname in SHAPE_VARIANTS if hasattr(KC, fname)]
HAND += [c(f"{fname}[unbatched]", getattr(KC, fname), [_rand(3, 32, 32, seed=21)], batch=None,
           note="image live (3,32,32), no batch dimension; no other arguments")
         for fname in SHAPE_VARIANTS if hasattr(KC, fname)]
# float64: ONNX Runtime implements fewer kernels for doubles than for floats
HAND += [c(f"{fname}[float64]", getattr(KC, fname), [_rand(1, 3, 32, 32, seed=25).double()],
           note="image live (1,3,32,32) float64; no other arguments")
         for fname in SHAPE_VARIANTS if hasattr(KC, fname)]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings(PKG)
HAND += [c("ColorMap", KC.ColorMap, [], {"base": "viridis", "num_colors": 16},
           note="no tensor input; base='viridis', num_colors=16 baked; read as the (3,16) colours it holds")]
CASES = HAND + DOC + from_tests(PKG, "color", HAND, DOC)
