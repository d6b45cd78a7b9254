"""Survey cases for ``kornia.augmentation``: 2D and 3D augmentations and the
containers (AugmentationSequential, ImageSequential, VideoSequential).

Every random augmentation is probed twice:

* ``Name`` (deterministic): parameters are sampled eagerly once
  (``forward_parameters(shape)`` after ``torch.manual_seed(7)``); the wrapper
  calls ``aug(image, params=...)`` with every tensor-valued parameter fed as an
  extra positional graph input, so the graph is deterministic and compared value
  for value. Structural parameters (the ``batch_prob`` gate, shapes, the
  colour-jitter ``order`` permutation) are held constant; the note lists both.
* ``Name[random]``: sampling happens inside the graph (``check=False``); the
  wrapper keeps the augmentation in training mode whatever the probe does.

Augmentations without random parameters (Normalize, CenterCrop, Resize) are
probed once, plainly. Containers run once eagerly and are then replayed with
those parameters held constant (only the data are live)."""

import dataclasses
import importlib
import inspect

import torch

import kornia.augmentation as KA
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand
from _kornia_tests import from_tests

PKG = "kornia.augmentation"
SHAPE = (1, 3, 32, 32)
SHAPE3D = (1, 1, 8, 16, 16)
# Parameters that decide shapes or Python control flow rather than values.
STRUCTURAL = ("batch_prob", "forward_input_shape", "dtype", "input_size", "output_size", "padding_size", "order")


class _Det(torch.nn.Module):
    """Replay an augmentation with fixed parameters; tensor parameters arrive as graph inputs."""

    def __init__(self, aug, keys, const):
        super().__init__()
        self.aug = aug
        self.keys = tuple(keys)
        self.const = const

    def forward(self, image, *values):
        params = dict(self.const)
        params.update(zip(self.keys, values))
        if "batch_prob" in params:  # one gate per sample at any batch (all 1 at p=1), as sampling would give
            params["batch_prob"] = params["batch_prob"][:1].expand(image.shape[0])
        return self.aug(image, params=params)


class _Rand(torch.nn.Module):
    """Call an augmentation plainly so that it samples inside the graph.

    ``eval()``/``train(False)`` on this wrapper leave the augmentation in
    training mode, so the probe's ``.eval()`` cannot switch sampling off.
    """

    def __init__(self, aug):
        super().__init__()
        self.aug = aug

    def train(self, mode=True):
        super().train(mode)
        self.aug.train(True)
        return self

    def forward(self, image):
        return self.aug(image)


class _Replay(torch.nn.Module):
    """Replay a container with the parameters of one eager run held constant."""

    def __init__(self, container, params, **call_kwargs):
        super().__init__()
        self.container = container
        self.params = params
        self.call_kwargs = call_kwargs

    def forward(self, *data):
        out = self.container(*data, params=self.params, **self.call_kwargs)
        if isinstance(out, (list, tuple)):
            return tuple(getattr(o, "data", o) if not isinstance(o, torch.Tensor) else o for o in out)
        return out


def _fmt(shape):
    return "(" + ",".join(str(s) for s in shape) + ")"


def _code(*lines, classes=()):
    """A case's ``code=``: what its repro snippet runs to build the target and inputs as the case did (the
    wrapper classes and the input helper written out, since a fresh interpreter cannot import this folder)."""
    sources = [inspect.getsource(c) for c in (_rand, *classes)]  # _rand's source defines rand
    return "\n".join(["import kornia.augmentation as KA", "", *sources, *lines])


def pair(name, make, *, section="", shape=SHAPE, baked="", half=False):
    """The deterministic and the in-graph random case of one augmentation. ``make``: the expression that builds it
    (text, so that each case's repro builds it the same way)."""
    build = lambda: eval(make, {"KA": KA})  # noqa: E731  (the augmentation, fresh each time)
    ref = f"kornia.augmentation.{name}"
    image = _rand(*shape, seed=1)
    torch.manual_seed(7)
    aug = build()
    params = aug.forward_parameters(shape)
    keys = [k for k, v in params.items() if isinstance(v, torch.Tensor) and k not in STRUCTURAL]
    const = {k: v for k, v in params.items() if k not in keys}
    live = ", ".join(f"{k} {_fmt(params[k].shape)}" for k in keys) or "none"
    held = ", ".join(sorted(const)) or "none"
    cfg = f"; {baked} baked" if baked else ""
    det = _code("torch.manual_seed(7)", f"aug = {make}", f"params = aug.forward_parameters({shape!r})",
                f"keys = {keys!r}", "const = {k: v for k, v in params.items() if k not in keys}",
                "target = _Det(aug, keys, const)", f"inputs = (rand(*{shape!r}, seed=1), *(params[k] for k in keys))",
                classes=(_Det,))
    cases = [
        case(name, _Det(aug, keys, const), [image, *(params[k] for k in keys)], package=PKG, section=section,
             ref=ref, code=det,
             note=f"image live {_fmt(shape)}{cfg}; params sampled once (seed 7) and fed as inputs: [{live}]; "
                  f"held constant: [{held}]"),
    ]
    if keys:
        cases.append(case(f"{name}[random]", _Rand(build()), [image], package=PKG, section=section, ref=ref,
                          check=False, code=_code(f"target = _Rand({make})", f"inputs = (rand(*{shape!r}, seed=1),)",
                                                  classes=(_Rand,)),
                          note=f"image live {_fmt(shape)}{cfg}; p=1; parameters sampled inside the graph (train mode)"))
    else:
        half = True  # nothing to sample at p=1: the random case exercises the per-sample gate instead
    if half:
        small = (4, *shape[1:])
        cases.append(case(f"{name}[p=0.5][random]", _Rand(make_half(build)), [_rand(*small, seed=2)],
                          package=PKG, section=section, ref=ref, check=False,
                          code=_code(f"aug = {make}", "aug.p = 0.5", "target = _Rand(aug)",
                                     f"inputs = (rand(*{small!r}, seed=2),)", classes=(_Rand,)),
                          note=f"image live (4,{','.join(map(str, shape[1:]))}){cfg}; p=0.5: per-sample gate "
                               "sampled inside the graph"))
    return cases


def make_half(make):
    aug = make()
    aug.p = 0.5
    return aug


def plain(name, aug, *, section="", shape=SHAPE, baked=""):
    return case(name, aug, [_rand(*shape, seed=1)], package=PKG, section=section, ref=f"kornia.augmentation.{name}",
                note=f"image live {_fmt(shape)}; {baked} baked; no random parameters (plain call)")


AUG_2D = [
    *pair("RandomAffine", "KA.RandomAffine(30.0, (0.1, 0.1), (0.9, 1.1), 10.0, p=1.0)",
          baked="degrees=30, translate=(0.1,0.1), scale=(0.9,1.1), shear=10", half=True),
    *pair("RandomPerspective", "KA.RandomPerspective(0.4, p=1.0)", baked="distortion_scale=0.4"),
    *pair("RandomHorizontalFlip", "KA.RandomHorizontalFlip(p=1.0)"),
    *pair("RandomResizedCrop", "KA.RandomResizedCrop((24, 24), p=1.0)", baked="size=(24,24)"),
    *pair("RandomCrop", "KA.RandomCrop((24, 24), p=1.0)", baked="size=(24,24)"),
    *pair("RandomElasticTransform", "KA.RandomElasticTransform((7, 7), (4.0, 4.0), p=1.0)",
          baked="kernel_size=(7,7), sigma=(4,4)"),
    *pair("RandomThinPlateSpline", "KA.RandomThinPlateSpline(0.2, p=1.0)", baked="scale=0.2"),
    *pair("RandomRotation90", "KA.RandomRotation90((-1, 2), p=1.0)", baked="times=(-1,2)"),
    *pair("ColorJiggle", "KA.ColorJiggle(0.2, 0.2, 0.2, 0.05, p=1.0)",
          baked="brightness=contrast=saturation=0.2, hue=0.05"),
    *pair("RandomGrayscale", "KA.RandomGrayscale(p=1.0)"),
    *pair("RandomGaussianBlur", "KA.RandomGaussianBlur((5, 5), (0.5, 2.0), p=1.0)",
          baked="kernel_size=(5,5), sigma=(0.5,2.0)"),
    *pair("RandomGaussianNoise", "KA.RandomGaussianNoise(0.0, 0.05, p=1.0)", baked="mean=0, std=0.05",
          half=True),
    *pair("RandomMotionBlur", "KA.RandomMotionBlur(5, 35.0, 0.5, p=1.0)",
          baked="kernel_size=5, angle=35, direction=0.5"),
    *pair("RandomSolarize", "KA.RandomSolarize(0.1, 0.1, p=1.0)", baked="thresholds=0.1, additions=0.1"),
    *pair("RandomErasing", "KA.RandomErasing(p=1.0)", baked="scale=(0.02,0.33), ratio=(0.3,3.3)"),
    *pair("RandomPlanckianJitter", "KA.RandomPlanckianJitter(p=1.0)", baked="mode='blackbody'"),
    plain("Normalize", KA.Normalize(torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])),
          baked="ImageNet mean/std"),
    plain("CenterCrop", KA.CenterCrop((24, 24)), baked="size=(24,24)"),
    plain("Resize", KA.Resize((24, 40)), baked="size=(24,40)"),
]

AUG_3D = [
    *pair("RandomAffine3D", "KA.RandomAffine3D((15.0, 20.0, 20.0), p=1.0)", section="3d", shape=SHAPE3D,
          baked="degrees=(15,20,20)"),
    *pair("RandomHorizontalFlip3D", "KA.RandomHorizontalFlip3D(p=1.0)", section="3d", shape=SHAPE3D),
    *pair("RandomCrop3D", "KA.RandomCrop3D((6, 12, 12), p=1.0)", section="3d", shape=SHAPE3D,
          baked="size=(6,12,12)"),
]


def _replayed(container, *data, **call_kwargs):
    """Run ``container`` once eagerly (seed 7) and return it wrapped with those parameters."""
    torch.manual_seed(7)
    container(*[d.clone() for d in data], **call_kwargs)
    return _Replay(container, container._params, **call_kwargs)


IMAGE = _rand(*SHAPE, seed=1)
BOXES = torch.tensor([[[2.0, 3.0, 14.0, 18.0], [10.0, 8.0, 28.0, 30.0]]])
KEYPOINTS = torch.tensor([[[5.0, 6.0], [20.0, 12.0], [16.0, 25.0]]])
VIDEO = _rand(1, 3, 4, 32, 32, seed=3)

CONTAINERS = [
    case("AugmentationSequential[image]",
         _replayed(KA.AugmentationSequential(KA.ColorJiggle(0.2, 0.2, 0.2, p=1.0), KA.RandomAffine(30.0, p=1.0)),
                   IMAGE),
         [IMAGE], package=PKG, section="container", ref="kornia.augmentation.AugmentationSequential",
         note="image live (1,3,32,32); ColorJiggle + RandomAffine; params from one eager run held constant"),
    case("AugmentationSequential[image, boxes, keypoints]",
         _replayed(KA.AugmentationSequential(KA.RandomAffine(30.0, p=1.0), KA.RandomHorizontalFlip(p=1.0),
                                             data_keys=["input", "bbox_xyxy", "keypoints"]),
                   IMAGE, BOXES, KEYPOINTS),
         [IMAGE, BOXES, KEYPOINTS], package=PKG, section="container",
         ref="kornia.augmentation.AugmentationSequential",
         note="image (1,3,32,32), boxes (1,2,4) xyxy, keypoints (1,3,2) live; RandomAffine + RandomHorizontalFlip; "
              "params held constant"),
    case("ImageSequential",
         _replayed(KA.ImageSequential(KA.RandomGaussianBlur((3, 3), (0.5, 1.5), p=1.0),
                                      KA.RandomPerspective(0.3, p=1.0)), IMAGE),
         [IMAGE], package=PKG, section="container", ref="kornia.augmentation.ImageSequential",
         note="image live (1,3,32,32); RandomGaussianBlur + RandomPerspective; params held constant"),
    case("VideoSequential",
         _replayed(KA.VideoSequential(KA.ColorJiggle(0.2, 0.2, 0.2, p=1.0), KA.RandomAffine(20.0, p=1.0),
                                      data_format="BCTHW", same_on_frame=True), VIDEO),
         [VIDEO], package=PKG, section="container", ref="kornia.augmentation.VideoSequential",
         note="video live (1,3,4,32,32) BCTHW; ColorJiggle + RandomAffine, same_on_frame=True; params held constant"),
]

GENERATORS = [
    case("ResizedCropGenerator[random]",
         importlib.import_module("kornia.augmentation.random_generator").ResizedCropGenerator(
             (16, 16), (0.5, 1.0), (0.75, 1.33)),
         [], {"batch_shape": (2, 3, 32, 32)}, package=PKG, section="generators", check=False,
         ref="kornia.augmentation.random_generator.ResizedCropGenerator",
         note="no tensor input; output_size=(16,16), scale=(0.5,1), ratio=(0.75,1.33) held; batch_shape=(2,3,32,32) "
              "baked; samples crop boxes (random: outputs not compared)"),
]

# The compile-first workflow published CPU speed-ups of three of these at batch 32 of 256x256 images
# (GaussianBlur 0.93x eager, horizontal flip 0.75x, affine 0.45x): their in-graph random cases are timed at
# that size too (bench=, for the speed pass only), so the showcase sets like beside like.
PUBLISHED_SIZE = (32, 3, 256, 256)
# (the flip samples nothing at p=1, so its in-graph random case is the p=0.5 one)
PUBLISHED = ("RandomGaussianBlur[random]", "RandomHorizontalFlip[p=0.5][random]", "RandomAffine[random]")
if missing := set(PUBLISHED) - {c.name for c in AUG_2D}:  # a renamed case would lose its size unnoticed
    raise NameError(f"cases_augmentation.py: PUBLISHED names no case {sorted(missing)}")
AUG_2D = [dataclasses.replace(c, bench=[_rand(*PUBLISHED_SIZE, seed=4)]) if c.name in PUBLISHED else c
          for c in AUG_2D]

HAND = [*AUG_2D, *AUG_3D, *CONTAINERS, *GENERATORS]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings(PKG)
CASES = HAND + DOC + from_tests(PKG, "augmentation", HAND, DOC)
