"""Survey cases for ``kornia.feature``: corner/blob responses, scale-space and
learned detectors, patch descriptors, orientation and affine-shape estimators,
descriptor matching and local affine frame (LAF) utilities. Learned models are
built with random weights (``pretrained=False``) because nothing can be
downloaded; models that only make sense with their released weights, or whose
construction downloads them, are registered as skip entries saying so."""

import torch

import kornia.feature as KF
from kornia.feature.xfeat import XFeatModel
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import into_sections, rand as _rand
from _kornia_tests import from_tests

PKG = "kornia.feature"


def c(section, name, target, inputs, kwargs=None, **kw):
    return case(name, target, inputs, kwargs, package=PKG, section=section, **kw)


def _model(module):
    """A learned model with seeded random weights, in eval mode."""
    torch.manual_seed(0)
    return module().eval()


GRAY = _rand(1, 1, 32, 32, seed=0)
GRAY64 = _rand(1, 1, 64, 64, seed=1)
PATCHES = _rand(4, 1, 32, 32, seed=2)
LAFS = KF.laf_from_center_scale_ori(
    _rand(1, 5, 2, seed=3, lo=20.0, hi=44.0), torch.full((1, 5, 1, 1), 6.0), _rand(1, 5, 1, seed=4, lo=-90.0, hi=90.0))
DESC1 = torch.nn.functional.normalize(_rand(8, 32, seed=5) - 0.5, dim=-1)
DESC2 = torch.nn.functional.normalize(torch.cat([DESC1[:6] + 0.05 * (_rand(6, 32, seed=6) - 0.5),
                                                 _rand(4, 32, seed=7) - 0.5]), dim=-1)


class _Disk(torch.nn.Module):
    """DISK with random weights; returns (keypoints, descriptors, scores) of the first image."""

    def __init__(self, n):
        super().__init__()
        self.disk = _model(KF.DISK)
        self.n = n

    def forward(self, images):
        feats = self.disk(images, n=self.n)[0]
        return feats.keypoints, feats.descriptors, feats.detection_scores


class _LoFTR(torch.nn.Module):
    """LoFTR with random weights, called as users call it: a dict of two grayscale images in, matches out."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.loftr = KF.LoFTR(pretrained=None).eval()

    def forward(self, image0, image1):
        return self.loftr({"image0": image0, "image1": image1})


class _Aliked(torch.nn.Module):
    """ALIKED with random weights; returns (keypoints, descriptors, scores) of the first image."""

    def __init__(self, n):
        super().__init__()
        torch.manual_seed(0)
        self.aliked = KF.ALIKED(max_num_keypoints=n).eval()

    def forward(self, images):
        feats = self.aliked(images)[0]
        return feats.keypoints, feats.descriptors, feats.keypoint_scores


class _Detector(torch.nn.Module):
    """A LAF detector: returns (responses, lafs) as tensors."""

    def __init__(self, detector):
        super().__init__()
        self.detector = detector

    def forward(self, img):
        return self.detector(img)


RESPONSES = [
    c("responses", "harris_response", KF.harris_response, [GRAY], {"k": 0.04},
      note="image live (1,1,32,32); k=0.04, grads_mode='sobel' baked"),
    c("responses", "gftt_response", KF.gftt_response, [GRAY], note="image live (1,1,32,32)"),
    c("responses", "hessian_response[live sigmas]", lambda img, sig: KF.hessian_response(img, sigmas=sig),
      [GRAY, torch.tensor([1.6])], ref="kornia.feature.hessian_response",
      note="image live (1,1,32,32); sigmas live (1,) (scale normalisation)"),
    c("responses", "dog_response", KF.dog_response, [_rand(1, 1, 4, 32, 32, seed=8)],
      note="scale-space stack live (1,1,4,32,32)"),
    c("responses", "CornerHarris", KF.CornerHarris(0.04), [GRAY],
      note="nn.Module; image live (1,1,32,32); k=0.04 held"),
]

DETECTORS = [
    c("detectors", "ScaleSpaceDetector", _Detector(KF.ScaleSpaceDetector(num_features=16)), [GRAY64],
      ref="kornia.feature.ScaleSpaceDetector",
      note="image live (1,1,64,64); num_features=16, default Hessian response, ConvQuadInterp3d sub-pixel; "
           "top-k and NMS inside"),
    c("detectors", "KeyNetDetector[random weights]",
      _Detector(KF.KeyNetDetector(pretrained=False, num_features=16).eval()), [GRAY64],
      ref="kornia.feature.KeyNetDetector",
      note="image live (1,1,64,64); pretrained=False (random weights), num_features=16 baked"),
    c("detectors", "DISK[random weights]", _Disk(32), [_rand(1, 3, 64, 64, seed=9)], ref="kornia.feature.DISK",
      note="image live (1,3,64,64); random weights; n=32 keypoints baked; returns keypoints, descriptors, scores"),
    c("detectors", "ALIKED[random weights]", _Aliked(32), [_rand(1, 3, 64, 64, seed=11)], ref="kornia.feature.ALIKED",
      note="image live (1,3,64,64); random weights (aliked-n16), max_num_keypoints=32 baked; returns keypoints, "
           "descriptors, scores"),
    c("detectors", "XFeatModel[random weights]", _model(XFeatModel), [GRAY64], ref="kornia.feature.XFeatModel",
      note="image live (1,1,64,64); random weights; dense backbone (feats, keypoint logits, heatmap)"),
]

DESCRIPTORS = [
    c("descriptors", "SIFTDescriptor", KF.SIFTDescriptor(32), [PATCHES],
      note="patches live (4,1,32,32); patch_size=32, rootsift=True held"),
    c("descriptors", "MKDDescriptor[no whitening]", KF.MKDDescriptor(32, whitening=None), [PATCHES],
      note="patches live (4,1,32,32); whitening=None (the whitened variants download statistics)"),
    c("descriptors", "HardNet[random weights]", _model(lambda: KF.HardNet(pretrained=False)), [PATCHES],
      ref="kornia.feature.HardNet", note="patches live (4,1,32,32); pretrained=False (random weights)"),
    c("descriptors", "SOSNet[random weights]", _model(lambda: KF.SOSNet(pretrained=False)), [PATCHES],
      ref="kornia.feature.SOSNet", note="patches live (4,1,32,32); pretrained=False (random weights)"),
    c("descriptors", "HyNet[random weights]", _model(lambda: KF.HyNet(pretrained=False)), [PATCHES],
      ref="kornia.feature.HyNet", note="patches live (4,1,32,32); pretrained=False; FRN + TLU layers"),
    c("descriptors", "LAFDescriptor", KF.LAFDescriptor(KF.SIFTDescriptor(32), patch_size=32), [GRAY64, LAFS],
      note="image live (1,1,64,64); lafs live (1,5,2,3); SIFT patch descriptor, patch_size=32 held"),
    c("descriptors", "MKDDescriptor[pcawt]", None, [], ref="kornia.feature.MKDDescriptor",
      skip="needs pretrained weights: the constructor downloads the PCA whitening statistics, and nothing can be "
           "downloaded here"),
]

ORIENTATION = [
    c("orientation", "PatchDominantGradientOrientation", KF.PatchDominantGradientOrientation(32), [PATCHES],
      note="patches live (4,1,32,32); 36 angular bins held"),
    c("orientation", "LAFOrienter", KF.LAFOrienter(32), [LAFS, GRAY64],
      note="lafs live (1,5,2,3); image live (1,1,64,64); dominant gradient orientation"),
    c("orientation", "OriNet[random weights]", _model(lambda: KF.OriNet(pretrained=False)), [PATCHES],
      ref="kornia.feature.OriNet", note="patches live (4,1,32,32); pretrained=False (random weights)"),
    c("orientation", "LAFAffineShapeEstimator", KF.LAFAffineShapeEstimator(19), [LAFS, GRAY64],
      note="lafs live (1,5,2,3); image live (1,1,64,64); second-moment matrix, patch_size=19"),
    c("orientation", "LAFAffNetShapeEstimator[random weights]",
      _model(lambda: KF.LAFAffNetShapeEstimator(pretrained=False)), [LAFS, GRAY64],
      ref="kornia.feature.LAFAffNetShapeEstimator",
      note="lafs live (1,5,2,3); image live (1,1,64,64); pretrained=False (random weights)"),
]

MATCHING = [
    c("matching", "match_nn", KF.match_nn, [DESC1, DESC2], note="descriptors live (8,32) and (10,32)"),
    c("matching", "match_mnn", KF.match_mnn, [DESC1, DESC2],
      note="descriptors live (8,32) and (10,32); number of matches is data-dependent"),
    c("matching", "match_snn", KF.match_snn, [DESC1, DESC2], {"th": 0.9},
      note="descriptors live (8,32) and (10,32); th=0.9 baked; data-dependent output size"),
    c("matching", "match_smnn", KF.match_smnn, [DESC1, DESC2], {"th": 0.95},
      note="descriptors live (8,32) and (10,32); th=0.95 baked; data-dependent output size"),
    c("matching", "DescriptorMatcher[snn]", KF.DescriptorMatcher("snn", 0.9), [DESC1, DESC2],
      note="nn.Module; descriptors live (8,32) and (10,32); match_mode='snn', th=0.9 held"),
    c("matching", "LoFTR[random weights]", _LoFTR(), [GRAY64, _rand(1, 1, 64, 64, seed=12)],
      ref="kornia.feature.LoFTR",
      note="two images live (1,1,64,64), passed as LoFTR's {'image0', 'image1'} dict; pretrained=None (random "
           "weights); the number of matches is data-dependent (none above the threshold with random weights)"),
    c("matching", "LightGlue", None, [], ref="kornia.feature.LightGlue",
      skip="needs pretrained weights: the constructor downloads them (also with weights=None), and nothing can be "
           "downloaded here"),
]

LAF = [
    c("laf", "laf_from_center_scale_ori", KF.laf_from_center_scale_ori,
      [_rand(1, 5, 2, seed=3, hi=64.0), torch.full((1, 5, 1, 1), 6.0), _rand(1, 5, 1, seed=4, lo=-90.0, hi=90.0)],
      note="centers (1,5,2), scales (1,5,1,1), orientations (1,5,1) live"),
    c("laf", "get_laf_scale", KF.get_laf_scale, [LAFS], note="lafs live (1,5,2,3)"),
    c("laf", "get_laf_orientation", KF.get_laf_orientation, [LAFS], note="lafs live (1,5,2,3); atan2"),
    c("laf", "scale_laf", KF.scale_laf, [LAFS, torch.tensor(1.5)], note="lafs live (1,5,2,3); scale_coef live 0-d"),
    c("laf", "make_upright", KF.make_upright, [LAFS], note="lafs live (1,5,2,3)"),
    c("laf", "ellipse_to_laf", KF.ellipse_to_laf,
      [torch.cat([_rand(1, 5, 2, seed=10, hi=64.0), torch.tensor([[[0.04, 0.01, 0.05]]]).expand(1, 5, 3)], -1)],
      note="ellipses live (1,5,5) (x, y, a, b, c) with positive-definite shape"),
    c("laf", "extract_patches_from_pyramid", KF.extract_patches_from_pyramid, [GRAY64, LAFS], {"PS": 16},
      note="image live (1,1,64,64); lafs live (1,5,2,3); PS=16 baked; pyramid level picked per LAF"),
]

LARGE_MODELS = [
    c("detectors", "SOLD2[random weights]", _model(lambda: KF.SOLD2(pretrained=False)), [GRAY64],
      ref="kornia.feature.SOLD2",
      note="image live (1,1,64,64); pretrained=False (random weights, 9.5M parameters); returns heatmaps, dense "
           "descriptors and line segments, whose number is data-dependent"),
    c("detectors", "DeDoDe", None, [], ref="kornia.feature.DeDoDe",
      skip="needs pretrained weights: the constructor downloads the DINOv2 ViT-L/14 backbone, and nothing can be "
           "downloaded here"),
    c("detectors", "DeFMO[random weights]", _model(lambda: KF.DeFMO(pretrained=False)),
      [_rand(1, 6, 64, 64, seed=13)], ref="kornia.feature.DeFMO",
      note="image and background live (1,6,64,64); pretrained=False (random weights, 43.6M parameters); "
           "returns 24 sub-frames (1,24,4,64,64)"),
]

# operators Kornia's own page probes that neither a docstring example nor a test of kornia calls on tensors
FEATURES16 = _rand(1, 8, 16, 16, seed=14, lo=-1.0, hi=1.0)
RESPONSES += [
    c("responses", "dog_response_single", KF.dog_response_single, [GRAY], {"sigma1": 1.0, "sigma2": 1.6},
      note="image live (1,1,32,32); sigma1=1, sigma2=1.6 baked"),
    c("responses", "BlobDoG", KF.BlobDoG(), [_rand(1, 1, 4, 32, 32, seed=8)],
      note="nn.Module; scale-space stack live (1,1,4,32,32)"),
]
DESCRIPTORS += [
    c("descriptors", "sift_describe", KF.siftdesc.sift_describe, [PATCHES], {"patch_size": 32},
      ref="kornia.feature.siftdesc.sift_describe", note="patches live (4,1,32,32); patch_size=32 baked"),
    c("descriptors", "FilterResponseNorm2d", KF.FilterResponseNorm2d(8), [FEATURES16],
      note="nn.Module; features live (1,8,16,16); 8 channels, initial weights held"),
    c("descriptors", "TLU", KF.TLU(8), [FEATURES16], note="nn.Module; features live (1,8,16,16); 8 channels"),
]
LAF += [
    c("laf", "rotate_laf", KF.rotate_laf, [LAFS, _rand(1, 5, 1, seed=15, lo=-90.0, hi=90.0)],
      note="lafs live (1,5,2,3); angles live (1,5,1) in degrees"),
]

DETECTORS += [
    c("detectors", "SIFTFeature", _model(lambda: KF.SIFTFeature(num_features=16)), [GRAY64],
      note="nn.Module; image live (1,1,64,64); num_features=16 held (no learned weights); returns LAFs, responses, "
           "descriptors"),
    c("detectors", "SIFTFeatureScaleSpace", _model(lambda: KF.SIFTFeatureScaleSpace(num_features=16)), [GRAY64],
      note="nn.Module; image live (1,1,64,64); num_features=16 held; returns LAFs, responses, descriptors"),
    c("detectors", "KeyNet[random weights]", _model(lambda: KF.KeyNet(pretrained=False)), [GRAY64],
      ref="kornia.feature.KeyNet", note="image live (1,1,64,64); pretrained=False (random weights); the response map"),
]
MATCHING += [
    c("matching", "LocalFeatureMatcher[SIFT+SNN]",
      _model(lambda: KF.LocalFeatureMatcher(KF.SIFTFeature(num_features=16), KF.DescriptorMatcher("snn", 0.9))),
      [{"image0": GRAY64, "image1": _rand(1, 1, 64, 64, seed=16)}], ref="kornia.feature.LocalFeatureMatcher",
      note="two images live (1,1,64,64) as {'image0', 'image1'}; SIFTFeature(16) and an SNN matcher (th=0.9) held; "
           "the number of matches is data-dependent"),
]

HAND = [*RESPONSES, *DETECTORS, *DESCRIPTORS, *ORIENTATION, *MATCHING, *LAF, *LARGE_MODELS]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
# the hand-written sections, by the module that defines a discovered operator
SECTION_OF_MODULE = {
    "responses": "responses", "scale_space_detector": "detectors", "keynet": "detectors", "disk": "detectors",
    "dedode": "detectors", "xfeat": "detectors", "aliked": "detectors", "sold2": "detectors",
    "hardnet": "descriptors", "hynet": "descriptors", "sosnet": "descriptors", "tfeat": "descriptors",
    "mkd": "descriptors", "siftdesc": "descriptors", "orientation": "orientation", "affine_shape": "orientation",
    "matching": "matching", "lightglue": "matching", "loftr": "matching", "adalam": "matching",
    "steerers": "matching", "laf": "laf",
}


def _section_of(module):
    parts = module.split(".")
    return SECTION_OF_MODULE.get(parts[2], "") if len(parts) > 2 else ""


DOC = cases_from_docstrings(PKG)
CASES = HAND + into_sections(DOC + from_tests(PKG, "feature", HAND, DOC), _section_of)
