"""Survey cases for ``kornia.losses`` and ``kornia.metrics``: image-similarity
losses (SSIM, MS-SSIM, PSNR), segmentation losses (dice, focal, Tversky,
Lovasz), robust regression losses, divergences and smoothness terms; and the
matching metrics (PSNR, SSIM, accuracy, confusion matrix, IoU, end-point
error). Predictions and targets are live; reductions and sizes are baked."""

import torch

import kornia.losses as KL
import kornia.metrics as KM
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand
from _kornia_tests import from_tests

IMG = "(1,3,32,32)"


def _labels(*shape, classes=4, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, classes, shape, generator=gen)


def loss(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package="kornia.losses", **kw)


def metric(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package="kornia.metrics", **kw)


A, B = _rand(1, 3, 32, 32, seed=0), _rand(1, 3, 32, 32, seed=1)
LOGITS = _rand(2, 4, 16, 16, seed=2, lo=-2.0, hi=2.0)
SEG = _labels(2, 16, 16, seed=3)

LOSSES = [
    loss("ssim_loss", KL.ssim_loss, [A, B], {"window_size": 5}, note=f"img1, img2 live {IMG}; window_size=5 baked"),
    loss("MS_SSIMLoss", KL.MS_SSIMLoss(sigmas=(0.5, 1.0, 2.0)),
         [_rand(1, 3, 64, 64, seed=4), _rand(1, 3, 64, 64, seed=5)],
         note="nn.Module; img1, img2 live (1,3,64,64); sigmas=(0.5,1,2) held"),
    loss("psnr_loss", KL.psnr_loss, [A, B], {"max_val": 1.0}, note=f"image, target live {IMG}; max_val=1 baked"),
    loss("dice_loss", KL.dice_loss, [LOGITS, SEG], note="logits live (2,4,16,16); labels live int64 (2,16,16)"),
    loss("focal_loss", KL.focal_loss, [LOGITS, SEG], {"alpha": 0.5, "gamma": 2.0, "reduction": "mean"},
         note="logits live (2,4,16,16); labels live int64 (2,16,16); alpha=0.5, gamma=2, reduction='mean' baked"),
    loss("binary_focal_loss_with_logits", KL.binary_focal_loss_with_logits,
         [LOGITS[:, :1], (SEG[:, None] > 1).float()], {"reduction": "mean"},
         note="logits live (2,1,16,16); binary targets live float (2,1,16,16); alpha=0.25, gamma=2 defaults"),
    loss("lovasz_softmax_loss", KL.lovasz_softmax_loss, [LOGITS, SEG],
         note="logits live (2,4,16,16); labels live int64 (2,16,16); sorts the errors"),
    loss("total_variation", KL.total_variation, [A], note=f"image live {IMG}; reduction='sum'"),
    loss("inverse_depth_smoothness_loss", KL.inverse_depth_smoothness_loss, [_rand(1, 1, 32, 32, seed=6, lo=0.1), A],
         note=f"inverse depth live (1,1,32,32); image live {IMG}"),
    loss("kl_div_loss_2d", KL.kl_div_loss_2d,
         [torch.softmax(LOGITS.flatten(2), -1).view_as(LOGITS),
          torch.softmax(LOGITS.flip(0).flatten(2), -1).view_as(LOGITS)],
         note="pred and target spatial distributions live (2,4,16,16)"),
    loss("normalized_mutual_information_loss_2d", KL.normalized_mutual_information_loss_2d,
         [_rand(2, 16, 16, seed=7), _rand(2, 16, 16, seed=8)], {"num_bins": 16},
         note="input and target live (2,16,16); num_bins=16 baked; Parzen-window histograms"),
]

METRICS = [
    metric("psnr", KM.psnr, [A, B], {"max_val": 1.0}, note=f"image, target live {IMG}; max_val=1 baked"),
    metric("ssim", KM.ssim, [A, B], {"window_size": 5}, note=f"img1, img2 live {IMG}; window_size=5 baked"),
    metric("accuracy[top-1,2]", KM.accuracy, [_rand(8, 5, seed=9), _labels(8, classes=5, seed=10)], {"topk": (1, 2)},
           note="scores live (8,5); labels live int64 (8,); topk=(1,2) baked; returns a list"),
    metric("confusion_matrix", KM.confusion_matrix, [LOGITS.argmax(1), SEG], {"num_classes": 4},
           note="predicted and true labels live int64 (2,16,16); num_classes=4 baked"),
    metric("mean_iou", KM.mean_iou, [LOGITS.argmax(1), SEG], {"num_classes": 4},
           note="predicted and true labels live int64 (2,16,16); num_classes=4 baked"),
    metric("mean_iou_bbox", KM.mean_iou_bbox,
           [torch.tensor([[2.0, 3.0, 14.0, 18.0], [10.0, 8.0, 28.0, 30.0]]),
            torch.tensor([[3.0, 2.0, 15.0, 16.0], [12.0, 9.0, 26.0, 31.0], [0.0, 0.0, 5.0, 5.0]])],
           note="boxes live (2,4) and (3,4) xyxy; returns the (2,3) IoU matrix"),
    metric("aepe", KM.aepe, [_rand(1, 16, 16, 2, seed=11), _rand(1, 16, 16, 2, seed=12)],
           note="flow and target live (1,16,16,2); reduction='mean'"),
]

# the mutual-information losses Kornia's page probes that no example or test calls on tensors
VOL_A, VOL_B = _rand(2, 8, 8, 8, seed=13), _rand(2, 8, 8, 8, seed=14)
FLAT_A, FLAT_B = _rand(2, 16, 16, seed=15), _rand(2, 16, 16, seed=16)
LOSSES += [
    loss("mutual_information_loss_3d", KL.mutual_information_loss_3d, [VOL_A, VOL_B], {"num_bins": 16},
         note="input and target live (2,8,8,8); num_bins=16 baked; Parzen-window histograms"),
    loss("normalized_mutual_information_loss_3d", KL.normalized_mutual_information_loss_3d, [VOL_A, VOL_B],
         {"num_bins": 16}, note="input and target live (2,8,8,8); num_bins=16 baked; Parzen-window histograms"),
    *[loss(name, getattr(KL, name)(ref, num_bins=16), [moving],
           note=f"nn.Module; input live {tuple(moving.shape)}; reference {tuple(ref.shape)} and num_bins=16 held")
      for name, ref, moving in [("MILossFromRef2D", FLAT_A, FLAT_B), ("NMILossFromRef2D", FLAT_A, FLAT_B),
                                ("MILossFromRef3D", VOL_A, VOL_B), ("NMILossFromRef3D", VOL_A, VOL_B)]],
]
METRICS += [
    metric("mean_average_precision", KM.mean_average_precision,
           [[torch.tensor([[2.0, 3.0, 14.0, 18.0], [10.0, 8.0, 28.0, 30.0]])], [torch.tensor([1, 2])],
            [torch.tensor([0.9, 0.6])], [torch.tensor([[3.0, 2.0, 15.0, 16.0], [12.0, 9.0, 26.0, 31.0]])],
            [torch.tensor([1, 2])]], {"n_classes": 3},
           note="one image: predicted boxes (2,4), labels (2,), scores (2,), true boxes (2,4) and labels (2,) live, "
                "each a list of one tensor; n_classes=3 baked; returns mAP and a dict of per-class APs"),
]

HAND = [*LOSSES, *METRICS]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings("kornia.losses") + cases_from_docstrings("kornia.metrics")
CASES = (HAND + DOC + from_tests("kornia.losses", "losses", HAND, DOC)
         + from_tests("kornia.metrics", "metrics", HAND, DOC))
