"""Survey cases for ``kornia.contrib`` and ``kornia.utils``: connected
components, distance transform, patch extraction/combination, histogram
matching, plasma fractal generation and k-means prediction; meshgrids,
one-hot encoding and the drawing helpers. Helpers that work on numpy arrays or
files, and models that need downloaded weights, are skip entries saying so."""

import torch

import kornia
import kornia.contrib as KC
from kornia.contrib.object_detection import BoxFiltering
import kornia.utils as KU
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import rand as _rand
from _kornia_tests import from_tests

IMG = "(1,3,32,32)"


def contrib(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package="kornia.contrib", **kw)


def utils(name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package="kornia.utils", **kw)


def _blobs():
    img = torch.zeros(1, 1, 32, 32)
    img[..., 3:10, 4:12] = 1.0
    img[..., 15:28, 18:30] = 1.0
    img[..., 20:30, 2:8] = 1.0
    return img


def _kmeans():
    gen = torch.Generator().manual_seed(0)
    centers = torch.tensor([[0.0, 0.0], [3.0, 3.0], [-3.0, 2.0]])
    data = torch.cat([c + 0.3 * torch.randn(20, 2, generator=gen) for c in centers])
    km = KC.KMeans(3, centers.clone(), max_iterations=10, seed=0)
    km.fit(data)
    return km


def _dummy():
    return torch.zeros(1)


CONTRIB = [
    # Lambda's own docstring example, written here: a lambda typed into a doctest has the example's
    # namespace as its globals, which is no module dynamo can import, so compiling Lambda[doc] failed in
    # dynamo itself; in a module (as in a user's code) it reads its globals as usual
    contrib("Lambda", KC.Lambda(lambda x: kornia.color.rgb_to_grayscale(x)), [_rand(1, 3, 5, 5, seed=3)],
            code="import kornia\nfrom kornia.contrib import Lambda\n"
                 "target = Lambda(lambda x: kornia.color.rgb_to_grayscale(x))",
            note="image live (1,3,5,5); the function is kornia.color.rgb_to_grayscale wrapped in a lambda, as in "
                 "the docstring example"),
    contrib("connected_components[100 iterations]", KC.connected_components, [_blobs()], {"num_iterations": 100},
            note="binary image live (1,1,32,32); num_iterations=100 baked (fixed-length loop)"),
    contrib("distance_transform", KC.distance_transform, [_blobs()], {"kernel_size": 3},
            note="binary image live (1,1,32,32); kernel_size=3, h=0.35 baked; loop length follows the image size"),
    contrib("extract_tensor_patches", KC.extract_tensor_patches, [_rand(1, 3, 32, 32)], {"window_size": 8, "stride": 8},
            note=f"image live {IMG}; window_size=8, stride=8 baked"),
    contrib("combine_tensor_patches", KC.combine_tensor_patches, [_rand(1, 16, 3, 8, 8, seed=1)],
            {"original_size": (32, 32), "window_size": 8, "stride": 8},
            note="patches live (1,16,3,8,8); original_size=(32,32), window_size=8, stride=8 baked"),
    contrib("histogram_matching", KC.histogram_matching,
            [_rand(1, 3, 32, 32, seed=2), _rand(1, 3, 32, 32, seed=3) ** 2],
            note=f"source and template live {IMG}; sorts pixel values"),
    contrib("diamond_square[random]", lambda r: KC.diamond_square((1, 1, 33, 33), roughness=r), [torch.tensor(0.5)],
            ref="kornia.contrib.diamond_square", check=False,
            note="roughness live 0-d; output_size=(1,1,33,33) baked; random plasma sampled inside the graph"),
    contrib("KMeans.predict", _kmeans(), [_rand(10, 2, seed=4, lo=-4.0, hi=4.0)], method="predict",
            ref="kornia.contrib.KMeans.predict",
            note="points live (10,2); KMeans fitted eagerly on 60 points (3 clusters), centres held as constants"),
    contrib("FaceDetector", None, [], ref="kornia.contrib.FaceDetector",
            skip="needs pretrained weights: the constructor downloads YuNet, and nothing can be downloaded here"),
]

UTILS = [
    utils("create_meshgrid", lambda d: KU.create_meshgrid(16, 24) + d * 0, [_dummy()],
          ref="kornia.utils.create_meshgrid",
          note="constant graph; dummy input; height=16, width=24, normalized_coordinates=True baked"),
    utils("one_hot", KU.one_hot, [torch.tensor([[[0, 1], [2, 3]]])],
          {"num_classes": 4, "device": torch.device("cpu"), "dtype": torch.float32},
          note="labels live int64 (1,2,2); num_classes=4 baked"),
    utils("draw_rectangle[filled]", KU.draw_rectangle,
          [torch.zeros(1, 3, 32, 32), torch.tensor([[[4.0, 5.0, 20.0, 25.0]]]), torch.tensor([[[1.0, 0.5, 0.0]]])],
          {"fill": True},
          note="image live (1,3,32,32); rectangles live (1,1,4); colour live (1,1,3); fill=True baked"),
    utils("draw_line", KU.draw_line, [torch.zeros(3, 32, 32), torch.tensor([2.0, 3.0]), torch.tensor([28.0, 20.0]),
                                     torch.tensor([1.0, 1.0, 1.0])],
          note="image live (3,32,32); endpoints live (2,); colour live (3,); Bresenham-style rasterisation"),
    utils("draw_convex_polygon", KU.draw_convex_polygon,
          [torch.zeros(1, 3, 32, 32), torch.tensor([[[4.0, 4.0], [26.0, 8.0], [20.0, 28.0], [6.0, 22.0]]]),
           torch.tensor([[0.0, 1.0, 0.0]])],
          note="images live (1,3,32,32); polygon live (1,4,2); colours live (1,3)"),
    utils("image_to_tensor/tensor_to_image", None, [], ref="kornia.utils.image_to_tensor",
          skip="numpy input/output: converts between numpy arrays and tensors, not a tensor graph"),
]

CONTRIB += [
    contrib("BoxFiltering", BoxFiltering(confidence_threshold=0.5, filter_as_zero=True),
            [torch.cat([torch.tensor([[[0.0], [1.0], [2.0], [1.0], [0.0]]]), _rand(1, 5, 1, seed=5),
                        _rand(1, 5, 4, seed=6, hi=20.0)], -1)],
            ref="kornia.contrib.object_detection.BoxFiltering",
            note="nn.Module; detections live (1,5,6) (class, score, box); confidence_threshold=0.5, "
                 "filter_as_zero=True held (filtered boxes become zeros: a fixed output size)"),
    contrib("FaceDetectorResult", lambda d: KC.FaceDetectorResult(d).get_keypoint(KC.FaceKeypoint.EYE_LEFT),
            [_rand(5, 15, seed=7, hi=32.0)], ref="kornia.contrib.FaceDetectorResult",
            note="detections live (5,15) (box, 5 keypoints, score); reads the left eye's keypoints"),
]
def _fitted_centres(points):
    kmeans = KC.KMeans(3, None, 1e-4, 10, 0)
    kmeans.fit(points)
    return kmeans.cluster_centers


CONTRIB += [
    contrib("KMeans.fit", _fitted_centres, [_rand(60, 2, seed=8, lo=-4.0, hi=4.0)], ref="kornia.contrib.KMeans.fit",
            note="points live (60,2); 3 clusters, 10 iterations at most, seed 0 baked; returns the fitted centres "
                 "(a loop that stops when they settle)"),
]
UTILS += [
    utils("torch_meshgrid", KU.torch_meshgrid, [[torch.arange(4.0), torch.arange(6.0)]], {"indexing": "ij"},
          note="two coordinate vectors live (4,) and (6,), as a list; indexing='ij' baked"),
]

HAND = [*CONTRIB, *UTILS]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
DOC = cases_from_docstrings("kornia.contrib") + cases_from_docstrings("kornia.utils")
CASES = (HAND + DOC + from_tests("kornia.contrib", "contrib", HAND, DOC)
         + from_tests("kornia.utils", "utils", HAND, DOC))
