"""Survey cases for ``kornia.filters``: linear blurs (gaussian, box, motion,
unsharp) with each border mode, edge-preserving blurs (bilateral, joint
bilateral, guided, median), derivatives (sobel, laplacian, spatial gradients,
canny), generic 2D/3D filtering, blur pooling, thresholding and the kernel
factories. Kernel sizes are always baked (they set tensor shapes); sigmas and
angles are probed live where the function accepts tensors."""

import torch

import kornia.filters as KF
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand, rgb as _rgb
from _kornia_tests import from_tests

PKG = "kornia.filters"
IMG = "(1,3,32,32)"


def c(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package=PKG, **kw)


def _gaussian_blur(border):
    return c(f"gaussian_blur2d[{border}]", KF.gaussian_blur2d, [_rgb()],
             {"kernel_size": (5, 5), "sigma": (1.5, 1.5), "border_type": border},
             note=f"image live {IMG}; kernel_size=(5,5), sigma=(1.5,1.5), border_type='{border}' baked")


HAND = [
    *[_gaussian_blur(b) for b in ("reflect", "constant", "circular")],
    c("gaussian_blur2d[live sigma][batch=2]", lambda x, s: KF.gaussian_blur2d(x, (5, 5), s),
      [_rgb(batch=2), torch.tensor([[1.0, 1.0], [2.0, 0.5]])], ref="kornia.filters.gaussian_blur2d",
      note="image live (2,3,32,32); sigma live (2,2) (one per sample); kernel_size=(5,5) baked"),
    c("gaussian_blur2d[non-separable]", KF.gaussian_blur2d, [_rgb()],
      {"kernel_size": (5, 5), "sigma": (1.5, 1.5), "separable": False},
      note=f"image live {IMG}; kernel_size=(5,5), sigma=(1.5,1.5), separable=False baked"),
    c("GaussianBlur2d", KF.GaussianBlur2d((5, 5), (1.5, 1.5)), [_rgb()],
      note=f"nn.Module; image live {IMG}; kernel_size=(5,5), sigma=(1.5,1.5) held in the module"),
    c("box_blur[separable]", KF.box_blur, [_rgb()], {"kernel_size": (3, 3)},
      note=f"image live {IMG}; kernel_size=(3,3), border_type='reflect', separable=True baked"),
    c("median_blur", KF.median_blur, [_rgb()], {"kernel_size": (3, 3)},
      note=f"image live {IMG}; kernel_size=(3,3) baked"),
    c("bilateral_blur[l1]", KF.bilateral_blur, [_rgb()],
      {"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5)},
      note=f"image live {IMG}; kernel_size=(5,5), sigma_color=0.1, sigma_space=(1.5,1.5), "
           "color_distance_type='l1' baked"),
    c("bilateral_blur[l2][live sigmas]",
      lambda x, sc, ss: KF.bilateral_blur(x, (5, 5), sc, ss, color_distance_type="l2"),
      [_rgb(), torch.tensor([0.1]), torch.tensor([[1.5, 1.5]])], ref="kornia.filters.bilateral_blur",
      note=f"image live {IMG}; sigma_color live (1,), sigma_space live (1,2); kernel_size=(5,5), "
           "color_distance_type='l2' baked"),
    c("joint_bilateral_blur", KF.joint_bilateral_blur, [_rgb(0), _rgb(1)],
      {"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5)},
      note=f"image and guidance live {IMG}; kernel_size=(5,5), sigma_color=0.1, sigma_space=(1.5,1.5) baked"),
    c("guided_blur[gray guide]", KF.guided_blur, [_rand(1, 1, 32, 32, seed=2), _rgb()], {"kernel_size": 5, "eps": 0.01},
      note=f"guidance live (1,1,32,32); image live {IMG}; kernel_size=5, eps=0.01 baked"),
    c("guided_blur[color guide][subsample=2]", KF.guided_blur, [_rgb(1), _rgb()],
      {"kernel_size": 5, "eps": 0.01, "subsample": 2},
      note=f"guidance and image live {IMG}; kernel_size=5, eps=0.01, subsample=2 baked (fast guided filter)"),
    c("unsharp_mask", KF.unsharp_mask, [_rgb()], {"kernel_size": (5, 5), "sigma": (1.5, 1.5)},
      note=f"image live {IMG}; kernel_size=(5,5), sigma=(1.5,1.5) baked"),
    c("motion_blur[baked angle]", KF.motion_blur, [_rgb()], {"kernel_size": 5, "angle": 35.0, "direction": 0.5},
      note=f"image live {IMG}; kernel_size=5, angle=35, direction=0.5 baked"),
    c("motion_blur[live angle]", lambda x, a, d: KF.motion_blur(x, 5, a, d), [_rgb(), torch.tensor([35.0]),
      torch.tensor([0.5])], ref="kornia.filters.motion_blur",
      note=f"image live {IMG}; angle, direction live (1,); kernel_size=5 baked"),
    c("laplacian", KF.laplacian, [_rgb()], {"kernel_size": 5}, note=f"image live {IMG}; kernel_size=5 baked"),
    c("sobel", KF.sobel, [_rgb()], note=f"image live {IMG}; normalized=True default"),
    c("spatial_gradient[sobel]", KF.spatial_gradient, [_rgb()], {"mode": "sobel", "order": 1},
      note=f"image live {IMG}; mode='sobel', order=1 baked"),
    c("spatial_gradient[diff][order=2]", KF.spatial_gradient, [_rgb()], {"mode": "diff", "order": 2},
      note=f"image live {IMG}; mode='diff', order=2 baked"),
    c("canny[hysteresis]", KF.canny, [_rgb()], {"low_threshold": 0.1, "high_threshold": 0.2},
      note=f"image live {IMG}; thresholds 0.1/0.2, kernel_size=(5,5), sigma=(1,1), hysteresis=True baked; "
           "hysteresis is a data-dependent loop"),
    c("canny[no hysteresis]", KF.canny, [_rgb()], {"low_threshold": 0.1, "high_threshold": 0.2, "hysteresis": False},
      note=f"image live {IMG}; thresholds 0.1/0.2, hysteresis=False baked"),
    c("filter2d[reflect]", KF.filter2d, [_rgb(), _rand(1, 3, 3, seed=5)],
      note=f"image live {IMG}; kernel live (1,3,3); border_type='reflect', padding='same'"),
    c("filter3d", KF.filter3d, [_rand(1, 2, 6, 16, 16, seed=8), _rand(1, 3, 3, 3, seed=9)],
      note="volume live (1,2,6,16,16); kernel live (1,3,3,3); border_type='replicate'"),
    c("fft_conv", KF.fft_conv, [_rgb(), _rand(1, 7, 7, seed=10)],
      note=f"image live {IMG}; kernel live (1,7,7); FFT path (torch.fft)"),
    c("edge_aware_blur_pool2d", KF.edge_aware_blur_pool2d, [_rgb()], {"kernel_size": 3},
      note=f"image live {IMG}; kernel_size=3, edge_threshold=1.25 baked"),
    c("in_range[live bounds]", KF.in_range, [_rgb(), torch.tensor([0.2, 0.2, 0.2]), torch.tensor([0.8, 0.8, 0.8])],
      note=f"image live {IMG}; lower, upper live (3,); returns the masked image"),
    c("otsu_threshold", KF.otsu_threshold, [_rand(1, 1, 32, 32, seed=11)], {"nbins": 64},
      note="image live (1,1,32,32); nbins=64 baked; returns (thresholded, threshold)"),
    c("get_gaussian_kernel2d[live sigma]", lambda s: KF.get_gaussian_kernel2d((5, 5), s), [torch.tensor([[1.5, 1.0]])],
      ref="kornia.filters.get_gaussian_kernel2d", note="sigma live (1,2); kernel_size=(5,5) baked"),
]


# The same blurs and derivatives on a batch of four non-square grayscale images.
GRAY_BATCH = "(4,1,48,64)"
HAND += [c(f"{name}[batch=4][48x64]", getattr(KF, fname), [_rand(4, 1, 48, 64, seed=22)], kwargs,
           note=f"image live {GRAY_BATCH}; " + (", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "defaults")
           + (" baked" if kwargs else ""))
         for name, fname, kwargs in [
             ("gaussian_blur2d", "gaussian_blur2d", {"kernel_size": (5, 5), "sigma": (1.5, 1.5)}),
             ("box_blur", "box_blur", {"kernel_size": (3, 3)}),
             ("median_blur", "median_blur", {"kernel_size": (3, 3)}),
             ("laplacian", "laplacian", {"kernel_size": 3}),
             ("sobel", "sobel", {}),
             ("spatial_gradient", "spatial_gradient", {}),
             ("unsharp_mask", "unsharp_mask", {"kernel_size": (3, 3), "sigma": (1.0, 1.0)}),
             ("blur_pool2d", "blur_pool2d", {"kernel_size": 3}),
             ("max_blur_pool2d", "max_blur_pool2d", {"kernel_size": 3}),
         ] if hasattr(KF, fname)]

# The kernel factories Kornia's page probes: plain Python arguments and no tensor input, so each case is the graph
# of constants its arguments make (what a model that builds its kernel in forward exports).
HAND += [c(name, getattr(KF, name), [], kwargs,
           note="no tensor input; " + (", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + " baked" if kwargs
                                       else "no arguments"))
         for name, kwargs in [
             ("get_box_kernel1d", {"kernel_size": 5}),
             ("get_box_kernel2d", {"kernel_size": (3, 5)}),
             ("get_binary_kernel2d", {"window_size": (3, 3)}),
             ("get_diff_kernel2d", {}),
             ("get_sobel_kernel2d", {}),
             ("get_spatial_gradient_kernel2d", {"mode": "sobel", "order": 1}),
             ("get_spatial_gradient_kernel3d", {"mode": "diff", "order": 1}),
             ("laplacian_1d", {"window_size": 5}),
         ]]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings(PKG)
CASES = HAND + DOC + from_tests(PKG, "filters", HAND, DOC)
