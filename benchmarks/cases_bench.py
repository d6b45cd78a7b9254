"""30 small image operators in the style of Kornia, for the probe benchmark.

Real torch code (filters, colour, geometry, morphology, enhancement), with
the usual mix of outcomes: most export everywhere, some hit a missing ONNX
lowering, a data-dependent branch, a value-dependent shape or randomness.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from sphinx_kexport.probe import case

PKG = "cases_bench"


# -- filters

def _gaussian_kernel(size: int, sigma: float) -> torch.Tensor:
    x = torch.arange(size, dtype=torch.float32) - (size - 1) / 2
    k = torch.exp(-(x ** 2) / (2 * sigma ** 2))
    return k / k.sum()


def gaussian_blur(img, kernel_size=5, sigma=1.2):
    k = _gaussian_kernel(kernel_size, sigma)
    kernel = (k[:, None] * k[None, :]).expand(img.shape[1], 1, kernel_size, kernel_size)
    return F.conv2d(F.pad(img, [kernel_size // 2] * 4, mode="reflect"), kernel, groups=img.shape[1])


def box_blur(img, kernel_size=3):
    return F.avg_pool2d(F.pad(img, [kernel_size // 2] * 4, mode="replicate"), kernel_size, stride=1)


def sobel(img):
    kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    kernel = torch.stack([kx, kx.t()])[:, None].repeat(img.shape[1], 1, 1, 1)
    grad = F.conv2d(F.pad(img, [1, 1, 1, 1], mode="replicate"), kernel, groups=img.shape[1])
    gx, gy = grad[:, 0::2], grad[:, 1::2]
    return torch.sqrt(gx * gx + gy * gy + 1e-6)


def laplacian(img):
    k = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    kernel = k.expand(img.shape[1], 1, 3, 3)
    return F.conv2d(F.pad(img, [1, 1, 1, 1], mode="reflect"), kernel, groups=img.shape[1])


def median_blur(img, kernel_size=3):
    b, c, h, w = img.shape
    patches = F.unfold(F.pad(img, [1, 1, 1, 1], mode="reflect"), kernel_size)
    return patches.view(b, c, kernel_size * kernel_size, h * w).median(dim=2).values.view(b, c, h, w)


def unsharp_mask(img):
    return img + (img - gaussian_blur(img, 3, 1.0))


# -- colour

def rgb_to_grayscale(img):
    weights = torch.tensor([0.299, 0.587, 0.114], dtype=img.dtype).view(1, 3, 1, 1)
    return (img * weights).sum(dim=1, keepdim=True)


def rgb_to_hsv(img, eps=1e-8):
    r, g, b = img[:, 0], img[:, 1], img[:, 2]
    maxc, argmax = img.max(dim=1)
    minc = img.min(dim=1).values
    delta = maxc - minc
    s = delta / (maxc + eps)
    delta = torch.where(delta == 0, torch.ones_like(delta), delta)
    rc, gc, bc = (maxc - r) / delta, (maxc - g) / delta, (maxc - b) / delta
    h = torch.stack([bc - gc, 2.0 + rc - bc, 4.0 + gc - rc], dim=1)
    h = torch.gather(h, 1, argmax.unsqueeze(1)).squeeze(1)
    h = (h / 6.0) % 1.0 * 2 * math.pi
    return torch.stack([h, s, maxc], dim=1)


def rgb_to_ycbcr(img):
    r, g, b = img[:, 0], img[:, 1], img[:, 2]
    y = 0.299 * r + 0.587 * g + 0.114 * b
    return torch.stack([y, (b - y) * 0.564 + 0.5, (r - y) * 0.713 + 0.5], dim=1)


def normalize(img, mean, std):
    return (img - mean.view(1, -1, 1, 1)) / std.view(1, -1, 1, 1)


# -- enhancement

def adjust_brightness(img, factor=0.2):
    return torch.clamp(img + factor, 0.0, 1.0)


def adjust_contrast(img, factor=1.5):
    return torch.clamp(img * factor, 0.0, 1.0)


def adjust_gamma(img, gamma=2.2, gain=1.0):
    return torch.clamp(gain * img.pow(gamma), 0.0, 1.0)


def solarize(img, threshold=0.5):
    return torch.where(img < threshold, img, 1.0 - img)


def equalize_histogram(img):
    # torch.histc: no ONNX lowering when the range comes from the data
    hist = torch.histc(img, bins=16)
    return img * (hist.cumsum(0)[-1] / img.numel())


def auto_contrast(img):
    lo = img.amin(dim=(2, 3), keepdim=True)
    hi = img.amax(dim=(2, 3), keepdim=True)
    return (img - lo) / (hi - lo + 1e-6)


# -- geometry

def rotate90(img):
    return torch.rot90(img, 1, dims=(2, 3))


def hflip(img):
    return img.flip(-1)


def center_crop(img, size=16):
    h, w = img.shape[-2:]
    top, left = (h - size) // 2, (w - size) // 2
    return img[..., top:top + size, left:left + size]


def resize_bilinear(img):
    return F.interpolate(img, size=(24, 24), mode="bilinear", align_corners=False)


def warp_affine(img, angle):
    cos, sin = torch.cos(angle), torch.sin(angle)
    zero = torch.zeros_like(cos)
    theta = torch.stack([torch.stack([cos, -sin, zero], -1), torch.stack([sin, cos, zero], -1)], 1)
    grid = F.affine_grid(theta, list(img.shape), align_corners=False)
    return F.grid_sample(img, grid, align_corners=False)


def invert_homography(h):
    # torch.linalg.inv: no ONNX lowering
    return torch.linalg.inv(h)


def points_to_homogeneous(points):
    return F.pad(points, [0, 1], value=1.0)


# -- morphology

def dilation(img):
    return F.max_pool2d(F.pad(img, [1, 1, 1, 1], mode="replicate"), 3, stride=1)


def erosion(img):
    return -F.max_pool2d(F.pad(-img, [1, 1, 1, 1], mode="replicate"), 3, stride=1)


def top_hat(img):
    return img - dilation(erosion(img))


# -- data-dependent and random

def keypoints_above(img, threshold=0.9):
    # the output shape depends on the values
    return torch.nonzero(img[0, 0] > threshold).float()


def clamp_if_bright(img):
    # a Python branch on tensor values
    if img.mean() > 0.5:
        return img.clamp(max=0.9)
    return img


def add_gaussian_noise(img):
    return img + 0.05 * torch.randn_like(img)


torch.manual_seed(0)
IMG = torch.rand(1, 3, 32, 32)
MEAN, STD = torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])

CASES = [
    case("filters.gaussian_blur", gaussian_blur, [IMG], package=PKG, section="filters"),
    case("filters.box_blur", box_blur, [IMG], package=PKG, section="filters"),
    case("filters.sobel", sobel, [IMG], package=PKG, section="filters"),
    case("filters.laplacian", laplacian, [IMG], package=PKG, section="filters"),
    case("filters.median_blur", median_blur, [IMG], package=PKG, section="filters"),
    case("filters.unsharp_mask", unsharp_mask, [IMG], package=PKG, section="filters"),
    case("color.rgb_to_grayscale", rgb_to_grayscale, [IMG], package=PKG, section="color"),
    case("color.rgb_to_hsv", rgb_to_hsv, [IMG], package=PKG, section="color", atol=1e-3),
    case("color.rgb_to_ycbcr", rgb_to_ycbcr, [IMG], package=PKG, section="color"),
    case("color.normalize", normalize, [IMG, MEAN, STD], package=PKG, section="color"),
    case("enhance.adjust_brightness", adjust_brightness, [IMG], package=PKG, section="enhance"),
    case("enhance.adjust_contrast", adjust_contrast, [IMG], package=PKG, section="enhance"),
    case("enhance.adjust_gamma", adjust_gamma, [IMG], package=PKG, section="enhance"),
    case("enhance.solarize", solarize, [IMG], package=PKG, section="enhance"),
    case("enhance.equalize_histogram", equalize_histogram, [IMG], package=PKG, section="enhance"),
    case("enhance.auto_contrast", auto_contrast, [IMG], package=PKG, section="enhance"),
    case("geometry.rotate90", rotate90, [IMG], package=PKG, section="geometry"),
    case("geometry.hflip", hflip, [IMG], package=PKG, section="geometry"),
    case("geometry.center_crop", center_crop, [IMG], package=PKG, section="geometry"),
    case("geometry.resize_bilinear", resize_bilinear, [IMG], package=PKG, section="geometry"),
    case("geometry.warp_affine", warp_affine, [IMG, torch.tensor([0.3])], package=PKG, section="geometry"),
    case("geometry.invert_homography", invert_homography, [torch.eye(3)[None] + 0.1 * torch.rand(1, 3, 3)],
         package=PKG, section="geometry"),
    case("geometry.points_to_homogeneous", points_to_homogeneous, [torch.rand(1, 10, 2)], package=PKG,
         section="geometry"),
    case("morphology.dilation", dilation, [IMG], package=PKG, section="morphology"),
    case("morphology.erosion", erosion, [IMG], package=PKG, section="morphology"),
    case("morphology.top_hat", top_hat, [IMG], package=PKG, section="morphology"),
    case("feature.keypoints_above", keypoints_above, [IMG], package=PKG, section="feature"),
    case("enhance.clamp_if_bright", clamp_if_bright, [IMG], package=PKG, section="enhance"),
    case("augmentation.gaussian_noise[random]", add_gaussian_noise, [IMG], package=PKG, section="augmentation",
         check=False),
    case("augmentation.skip_weights", None, [], package=PKG, section="augmentation",
         skip="needs pretrained weights"),
]
