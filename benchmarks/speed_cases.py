"""A handful of kornia operators for the speed pass's benchmark (benchmarks/bench_speed.py), with the inputs the
example's hand-written cases give them (example_docs/cases: one 3×32×32 image); the three operators of the
compile-first workflow's published CPU figures also give their timing size (``bench=``: batch 32 of 256×256).
"""

from __future__ import annotations

import kornia.enhance as KE
import kornia.color as KC
import kornia.filters as KF
import kornia.geometry.transform as KT
import torch

from sphinx_kexport.probe import case


def rand(*shape, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


IMAGE, LARGE = rand(1, 3, 32, 32), rand(32, 3, 256, 256, seed=1)
AFFINE = torch.tensor([[[0.9, -0.1, 1.5], [0.1, 0.9, -2.0]]])

CASES = [
    case("GaussianBlur2d", KF.GaussianBlur2d((5, 5), (1.5, 1.5)), [IMAGE], package="kornia.filters", bench=[LARGE]),
    case("hflip", KT.hflip, [IMAGE], package="kornia.geometry", bench=[LARGE]),
    case("warp_affine[bilinear]", KT.warp_affine, [IMAGE, AFFINE], {"dsize": (32, 32)}, package="kornia.geometry"),
    case("sobel", KF.sobel, [IMAGE], package="kornia.filters"),
    case("rgb_to_grayscale", KC.rgb_to_grayscale, [IMAGE], package="kornia.color"),
    case("adjust_brightness[baked factor]", KE.adjust_brightness, [IMAGE], {"factor": 0.3}, package="kornia.enhance"),
]
