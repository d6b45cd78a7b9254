"""Survey cases for the rest of kornia, from docstring examples and kornia's own tests: ``kornia.core``
(checks and batching helpers), ``kornia.image`` (drawing, conversion), ``kornia.models`` (model families
built with random weights in their examples) and ``kornia.sensors`` (camera projection models)."""

import importlib

import torch

import kornia.image

from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand
from _kornia_tests import from_tests



def _models(name):
    return importlib.import_module(f"kornia.models.{name}")


SegmentationResults = _models("structures").SegmentationResults


def _seeded(build):
    torch.manual_seed(0)
    return build().eval()


HAND = [
    case("make_grid", kornia.image.make_grid, [rand(4, 3, 8, 8, seed=1)], {"n_row": 2}, package="kornia.image",
         note="images live (4,3,8,8); n_row=2 baked; a 2x2 grid with 2-pixel padding"),
    case("efficientvit_backbone_b0[random weights]",
         _seeded(lambda: _models("efficient_vit.backbone").efficientvit_backbone_b0()), [rand(1, 3, 64, 64, seed=2)],
         package="kornia.models", ref="kornia.models.efficient_vit.backbone.efficientvit_backbone_b0",
         note="nn.Module built by the factory with random weights; image live (1,3,64,64); returns its feature maps"),
    case("DETRPostProcessor", _models("rt_detr").DETRPostProcessor(confidence_threshold=0.3, num_classes=4,
                                                                   num_top_queries=5, filter_as_zero=True),
         [rand(1, 10, 4, seed=3, lo=-2.0, hi=2.0), rand(1, 10, 4, seed=4, lo=0.1, hi=0.9),
          torch.tensor([[64, 48]])], package="kornia.models", ref="kornia.models.rt_detr.DETRPostProcessor",
         note="nn.Module; logits live (1,10,4), normalised cxcywh boxes live (1,10,4), original size live int64 "
              "(1,2); 5 top queries, threshold 0.3, filter_as_zero=True held"),
    case("SegmentationResults.binary_masks",
         lambda logits, scores: SegmentationResults(logits, scores).binary_masks,
         [rand(1, 3, 16, 16, seed=5, lo=-1.0, hi=1.0), rand(1, 3, seed=6)], package="kornia.models",
         ref="kornia.models.structures.SegmentationResults.binary_masks",
         note="mask logits live (1,3,16,16), scores live (1,3); a property: the masks above threshold 0"),
    case("image_list_to_tensor", kornia.image.image_list_to_tensor, [[rand(3, 8, 8, seed=7), rand(3, 8, 8, seed=8)]],
         package="kornia.image", note="a list of two images live (3,8,8), read as height, width, channels; returns "
                                      "(2,8,3,8)"),
]


# resolved here, once: a target that calls importlib inside the captured call breaks dynamo's graph
CAMERA = importlib.import_module("kornia.sensors.camera")
Z1Projection = importlib.import_module("kornia.sensors.camera.projection_model").Z1Projection
Vector3 = importlib.import_module("kornia.geometry.vector").Vector3


POINTS = torch.cat([rand(6, 2, seed=9, lo=-0.5, hi=0.5), rand(6, 1, seed=10, lo=1.0, hi=3.0)], -1)
SIZE = importlib.import_module("kornia.image").ImageSize(48, 64)
HAND += [
    case("Z1Projection.project", lambda p: Z1Projection().project(Vector3(p)),
         [POINTS], package="kornia.sensors", ref="kornia.sensors.camera.projection_model.Z1Projection.project",
         note="3D points live (6,3) as a Vector3; returns a Vector2, read as its tensor"),
    case("PinholeModel.project",
         lambda params, p: CAMERA.PinholeModel(SIZE, params).project(Vector3(p)),
         [torch.tensor([40.0, 40.0, 32.0, 24.0]), POINTS], package="kornia.sensors",
         ref="kornia.sensors.camera.PinholeModel",
         note="intrinsics live (4,) (fx, fy, cx, cy); 3D points live (6,3); image size 48x64 baked"),
    case("CameraModel.project[pinhole]",
         lambda params, p: CAMERA.CameraModel(SIZE, CAMERA.CameraModelType.PINHOLE, params).project(Vector3(p)),
         [torch.tensor([40.0, 40.0, 32.0, 24.0]), POINTS], package="kornia.sensors",
         ref="kornia.sensors.camera.CameraModel",
         note="intrinsics live (4,); 3D points live (6,3); CameraModelType.PINHOLE, image size 48x64 baked"),
]

DOC = [spec for name in ("core", "image", "models", "sensors") for spec in cases_from_docstrings(f"kornia.{name}")]
# not kornia.models' tests: each test builds its own full-size model (SigLip2, Kimi-VL, PaliGemma), and discovery
# holds every configuration it keeps until the tests end: 7.2 GB alone, 24 GB in this module's inventory child
# beside the docstring examples' models (see showcase/kornia.rst)
CASES = HAND + DOC + [spec for name in ("core", "image", "sensors")
                      for spec in from_tests(f"kornia.{name}", name, HAND, DOC)]
