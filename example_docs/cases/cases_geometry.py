"""Survey cases for ``kornia.geometry``: image warps and transforms, rotation /
point conversions, camera models, epipolar geometry, Lie groups, linear
algebra helpers, homography estimation, boxes, depth, sub-pixel and
calibration utilities. Inputs are valid by construction: rotations come from
axis-angle vectors, homographies are near-identity (invertible), epipolar
correspondences are projections of one synthetic scene, boxes are well formed."""

import importlib

import torch

import kornia.geometry.calibration as KCAL
import kornia.geometry.camera as KCAM
import kornia.geometry.conversions as KCONV
import kornia.geometry.depth as KD
import kornia.geometry.epipolar as KEP
import kornia.geometry.homography as KH
import kornia.geometry.linalg as KL
import kornia.geometry.subpix as KS
import kornia.geometry.transform as KT
from kornia.geometry.boxes import Boxes, Boxes3D
from kornia.geometry.camera import PinholeCamera, StereoCamera
from kornia.geometry.liegroup import Se2, Se3, So2, So3
from sphinx_kexport.probe import case, cases_from_docstrings
from _inputs import into_sections, rand as _rand, rgb as _rgb
from _kornia_tests import from_tests

PKG = "kornia.geometry"
IMG = "(1,3,32,32)"


def _section_ref(section, target):
    """``kornia.geometry.<section>.<name>`` when that public path names ``target``."""
    name = getattr(target, "__name__", "")
    if not name or name == "<lambda>":
        return None
    try:
        mod = importlib.import_module(f"kornia.geometry.{section}")
    except ImportError:
        return None
    return f"kornia.geometry.{section}.{name}" if getattr(mod, name, None) is target else None


def c(section, name, target, inputs, kwargs=None, ref=None, **kw):
    if ref is None:
        ref = _section_ref(section, target)
    return case(name, target, inputs, kwargs, package=PKG, section=section, ref=ref, **kw)


# --------------------------------------------------------------------------- valid inputs

def _rotmat(seed=0, batch=1, scale=0.8):
    aa = (_rand(batch, 3, seed=seed) - 0.5) * scale
    return KCONV.axis_angle_to_rotation_matrix(aa)


def _homography(seed=0, batch=1):
    noise = (_rand(batch, 3, 3, seed=seed) - 0.5) * torch.tensor([[0.2, 0.2, 4.0], [0.2, 0.2, 4.0], [1e-3, 1e-3, 0.0]])
    return torch.eye(3).expand(batch, 3, 3) + noise


def _affine(seed=0, batch=1):
    return _homography(seed, batch)[:, :2, :]


def _K(batch=1):
    K = torch.tensor([[40.0, 0.0, 16.0], [0.0, 42.0, 15.0], [0.0, 0.0, 1.0]])
    return K.expand(batch, 3, 3).clone()


def _quat(seed=0, n=4):
    q = _rand(n, 4, seed=seed) - 0.5
    return q / q.norm(dim=-1, keepdim=True)


def _scene(n=12, seed=0):
    """Two cameras looking at points 3-6 units in front; returns a dict of tensors."""
    K = _K()
    R1, t1 = torch.eye(3)[None], torch.zeros(1, 3, 1)
    R2 = _rotmat(seed + 1, scale=0.2)
    t2 = torch.tensor([[[0.6], [0.05], [0.03]]])
    X = torch.cat([_rand(1, n, 2, seed=seed, lo=-1.0, hi=1.0), _rand(1, n, 1, seed=seed + 2, lo=3.0, hi=6.0)], -1)
    P1, P2 = KEP.projection_from_KRt(K, R1, t1), KEP.projection_from_KRt(K, R2, t2)

    def proj(P):
        xh = KCONV.convert_points_to_homogeneous(X) @ P.transpose(-1, -2)
        return KCONV.convert_points_from_homogeneous(xh)

    x1, x2 = proj(P1), proj(P2)
    return {"K": K, "R1": R1, "t1": t1, "R2": R2, "t2": t2, "X": X, "P1": P1, "P2": P2, "x1": x1, "x2": x2,
            "F": KEP.fundamental_from_projections(P1, P2), "E": KEP.essential_from_Rt(R1, t1, R2, t2)}


S = _scene()
PTS = _rand(1, 8, 2, seed=21, lo=2.0, hi=30.0)  # pixel points inside a 32x32 image
H = _homography(5)
PTS2 = KL.transform_points(H, PTS)


def _rt4x4(seed=0):
    return KCONV.Rt_to_matrix4x4(_rotmat(seed), _rand(1, 3, 1, seed=seed + 50) - 0.5)


def _boxes(batch=1, n=3):
    xy = _rand(batch, n, 2, seed=31, lo=1.0, hi=12.0)
    wh = _rand(batch, n, 2, seed=32, lo=4.0, hi=16.0)
    return torch.cat([xy, xy + wh], -1)


# --------------------------------------------------------------------------- transform

def _warp_p(variant, batch=1, **kw):
    baked = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    extra = f", {baked}" if baked else ""
    return c("transform", f"warp_perspective[{variant}]", KT.warp_perspective,
             [_rgb(batch=batch), _homography(1, batch)], {"dsize": (32, 32), **kw},
             note=f"image live ({batch},3,32,32); M live ({batch},3,3); dsize=(32,32){extra} baked")


TRANSFORM = [
    _warp_p("bilinear][zeros"),
    _warp_p("nearest", mode="nearest"),
    _warp_p("reflection", padding_mode="reflection", align_corners=False),
    _warp_p("batch=2", batch=2),
    c("transform", "warp_affine[bilinear]", KT.warp_affine, [_rgb(), _affine(2)], {"dsize": (32, 32)},
      note=f"image live {IMG}; M live (1,2,3); dsize=(32,32), mode='bilinear', align_corners=True baked"),
    c("transform", "warp_affine[border][align_corners=False]", KT.warp_affine, [_rgb(), _affine(2)],
      {"dsize": (32, 32), "padding_mode": "border", "align_corners": False},
      note=f"image live {IMG}; M live (1,2,3); dsize=(32,32), padding_mode='border', align_corners=False baked"),
    c("transform", "warp_affine[fill]",
      lambda x, m, f: KT.warp_affine(x, m, (32, 32), padding_mode="fill", fill_value=f),
      [_rgb(), _affine(2), torch.tensor([0.5, 0.2, 0.9])], ref="kornia.geometry.transform.warp_affine",
      note=f"image live {IMG}; M live (1,2,3); fill_value live (3,); padding_mode='fill', dsize=(32,32) baked"),
    c("transform", "rotate", KT.rotate, [_rgb(), torch.tensor([30.0])],
      note=f"image live {IMG}; angle live (1,) degrees"),
    c("transform", "resize[bilinear]", KT.resize, [_rgb()], {"size": (20, 24)},
      note=f"image live {IMG}; size=(20,24), interpolation='bilinear' baked"),
    c("transform", "resize[nearest]", KT.resize, [_rgb()], {"size": (48, 40), "interpolation": "nearest"},
      note=f"image live {IMG}; size=(48,40), interpolation='nearest' baked"),
    c("transform", "resize[antialias]", KT.resize, [_rgb()], {"size": 16, "antialias": True},
      note=f"image live {IMG}; size=16 (short side), antialias=True baked"),
    c("transform", "hflip", KT.hflip, [_rgb()], note=f"image live {IMG}"),
    c("transform", "crop_and_resize", KT.crop_and_resize,
      [_rgb(), torch.tensor([[[4.0, 4.0], [23.0, 4.0], [23.0, 19.0], [4.0, 19.0]]])], {"size": (16, 16)},
      note=f"image live {IMG}; boxes live (1,4,2) (corner points); size=(16,16) baked"),
    c("transform", "get_perspective_transform", KT.get_perspective_transform,
      [PTS[:, :4], PTS2[:, :4]], note="src and dst corners live (1,4,2)"),
    c("transform", "get_rotation_matrix2d", KT.get_rotation_matrix2d,
      [torch.tensor([[16.0, 16.0]]), torch.tensor([45.0]), torch.tensor([[1.0, 1.0]])],
      note="center live (1,2); angle live (1,); scale live (1,2)"),
    c("transform", "pyrdown", KT.pyrdown, [_rgb()], note=f"image live {IMG}; border_type='reflect', factor=2"),
    c("transform", "remap", KT.remap,
      [_rgb(), _rand(1, 32, 32, seed=6, lo=0.0, hi=31.0), _rand(1, 32, 32, seed=7, lo=0.0, hi=31.0)],
      {"align_corners": True},
      note=f"image live {IMG}; map_x, map_y live (1,32,32) pixel coordinates; align_corners=True baked"),
    c("transform", "elastic_transform2d", KT.elastic_transform2d, [_rgb(), _rand(1, 2, 32, 32, seed=8) * 2 - 1],
      {"kernel_size": (7, 7), "sigma": (4.0, 4.0), "alpha": (1.0, 1.0)},
      note=f"image live {IMG}; noise live (1,2,32,32); kernel_size=(7,7), sigma=(4,4), alpha=(1,1) baked"),
    c("transform", "get_tps_transform", KT.get_tps_transform, [PTS / 32.0 * 2 - 1, PTS2 / 32.0 * 2 - 1],
      note="src and dst control points live (1,8,2) in [-1,1]; solves a linear system"),
    c("transform", "warp_image_tps", KT.warp_image_tps,
      [_rgb(), PTS2 / 32.0 * 2 - 1, *KT.get_tps_transform(PTS2 / 32.0 * 2 - 1, PTS / 32.0 * 2 - 1)],
      note=f"image live {IMG}; kernel_centers (1,8,2), kernel_weights (1,8,2), affine_weights (1,3,2) live"),
    c("transform", "warp_perspective3d", KT.warp_perspective3d,
      [_rand(1, 1, 8, 16, 16, seed=9), torch.eye(4)[None] + (_rand(1, 4, 4, seed=10) - 0.5) * 0.05],
      {"dsize": (8, 16, 16)}, note="volume live (1,1,8,16,16); M live (1,4,4); dsize=(8,16,16) baked"),
]

# --------------------------------------------------------------------------- conversions

AA = (_rand(4, 3, seed=40) - 0.5) * 2.0
ROTS = KCONV.axis_angle_to_rotation_matrix(AA)
QUATS = _quat(41)

CONVERSIONS = [
    c("conversions", "axis_angle_to_rotation_matrix", KCONV.axis_angle_to_rotation_matrix, [AA],
      note="axis-angle live (4,3)"),
    c("conversions", "rotation_matrix_to_axis_angle", KCONV.rotation_matrix_to_axis_angle, [ROTS],
      note="rotation matrices live (4,3,3) (proper rotations)"),
    c("conversions", "rotation_matrix_to_quaternion", KCONV.rotation_matrix_to_quaternion, [ROTS],
      note="rotation matrices live (4,3,3); eps baked; branchy trace-based formula"),
    c("conversions", "quaternion_to_rotation_matrix", KCONV.quaternion_to_rotation_matrix, [QUATS],
      note="unit quaternions live (4,4) wxyz"),
    c("conversions", "quaternion_from_euler", KCONV.quaternion_from_euler,
      [torch.tensor([0.1, 0.4]), torch.tensor([-0.3, 0.2]), torch.tensor([0.7, -1.0])],
      note="roll, pitch, yaw live (2,); returns (w, x, y, z)"),
    c("conversions", "euler_from_quaternion", KCONV.euler_from_quaternion, list(QUATS.T),
      note="w, x, y, z live (4,) each"),
    c("conversions", "convert_points_to_homogeneous", KCONV.convert_points_to_homogeneous, [PTS],
      note="points live (1,8,2)"),
    c("conversions", "convert_points_from_homogeneous", KCONV.convert_points_from_homogeneous,
      [KCONV.convert_points_to_homogeneous(PTS) * 2.5],
      note="homogeneous points live (1,8,3), last coordinate non-zero"),
    c("conversions", "normalize_pixel_coordinates", KCONV.normalize_pixel_coordinates, [PTS],
      {"height": 32, "width": 32}, note="pixel points live (1,8,2); height=32, width=32 baked"),
    c("conversions", "Rt_to_matrix4x4", KCONV.Rt_to_matrix4x4, [_rotmat(4), _rand(1, 3, 1, seed=42)],
      note="R live (1,3,3); t live (1,3,1)"),
]

# --------------------------------------------------------------------------- camera

PC_EXT = _rt4x4(7)
PC_INT = torch.eye(4)[None].clone()
PC_INT[:, :3, :3] = _K()


def _pinhole_project(intr, extr, pts):
    cam = PinholeCamera(intr, extr, torch.tensor([32.0]), torch.tensor([32.0]))
    return cam.project(pts)


KB_PARAMS = torch.tensor([[40.0, 42.0, 16.0, 15.0, 0.05, -0.01, 0.002, 0.0]])
Z1_PTS = _rand(1, 6, 2, seed=60, lo=-0.4, hi=0.4)

CAMERA = [
    c("camera", "project_points", KCAM.project_points, [S["X"], S["K"]],
      note="3D points live (1,12,3); K live (1,3,3)"),
    c("camera", "unproject_points", KCAM.unproject_points, [S["x1"], S["X"][..., 2:], S["K"]],
      note="pixels live (1,12,2); depth live (1,12,1); K live (1,3,3)"),
    c("camera", "PinholeCamera.project", _pinhole_project, [PC_INT, PC_EXT, S["X"]],
      ref="kornia.geometry.camera.PinholeCamera.project",
      note="intrinsics, extrinsics live (1,4,4); points live (1,12,3); height/width built inside as constants"),
    c("camera", "project_points_z1", KCAM.project_points_z1, [S["X"]], note="3D points live (1,12,3)"),
    c("camera", "distort_points_kannala_brandt", KCAM.distort_points_kannala_brandt, [Z1_PTS, KB_PARAMS],
      note="z1-plane points live (1,6,2); params live (1,8)"),
    c("camera", "undistort_points_kannala_brandt", KCAM.undistort_points_kannala_brandt,
      [KCAM.distort_points_kannala_brandt(Z1_PTS, KB_PARAMS), KB_PARAMS],
      note="distorted points live (1,6,2); params live (1,8); iterative Newton solve"),
    c("camera", "StereoCamera.reproject_disparity_to_3D",
      lambda left, right, disp: StereoCamera(left, right).reproject_disparity_to_3D(disp),
      [torch.cat([_K(), torch.zeros(1, 3, 1)], -1),
       torch.cat([_K(), torch.tensor([[[-40.0 * 0.1], [0.0], [0.0]]])], -1),
       _rand(1, 16, 16, 1, seed=61, lo=1.0, hi=8.0)],
      ref="kornia.geometry.camera.StereoCamera.reproject_disparity_to_3D",
      note="rectified left/right projection matrices live (1,3,4); disparity live (1,16,16,1)"),
]

# --------------------------------------------------------------------------- epipolar

EPIPOLAR = [
    c("epipolar", "find_fundamental[8POINT]", KEP.find_fundamental, [S["x1"], S["x2"]],
      note="correspondences live (1,12,2); method='8POINT'; uses SVD"),
    c("epipolar", "find_fundamental[7POINT]", KEP.find_fundamental, [S["x1"][:, :7], S["x2"][:, :7]],
      {"method": "7POINT"},
      note="correspondences live (1,7,2); method='7POINT' baked; cubic solver, up to 3 solutions"),
    c("epipolar", "find_essential", KEP.find_essential,
      [KCONV.normalize_points_with_intrinsics(S["x1"][:, :5], S["K"]),
       KCONV.normalize_points_with_intrinsics(S["x2"][:, :5], S["K"])],
      note="normalized correspondences live (1,5,2); 5-point solver (polynomial roots); returns 10 candidate "
           "E matrices, non-real roots come back as NaN"),
    c("epipolar", "essential_from_fundamental", KEP.essential_from_fundamental, [S["F"], S["K"], S["K"]],
      note="F live (1,3,3); K1, K2 live (1,3,3)"),
    c("epipolar", "sampson_epipolar_distance", KEP.sampson_epipolar_distance, [S["x1"], S["x2"], S["F"]],
      note="points live (1,12,2); F live (1,3,3); squared=True"),
    c("epipolar", "decompose_essential_matrix", KEP.decompose_essential_matrix, [S["E"]],
      note="E live (1,3,3); SVD-based; returns (R1, R2, t)"),
    c("epipolar", "motion_from_essential_choose_solution", KEP.motion_from_essential_choose_solution,
      [S["E"], S["K"], S["K"], S["x1"], S["x2"]],
      note="E, K1, K2 live (1,3,3); correspondences live (1,12,2); cheirality test by triangulation"),
    c("epipolar", "triangulate_points", KEP.triangulate_points, [S["P1"], S["P2"], S["x1"], S["x2"]],
      note="P1, P2 live (1,3,4); points live (1,12,2); solver='eigh'"),
    c("epipolar", "KRt_from_projection", KEP.KRt_from_projection, [S["P2"]],
      note="P live (1,3,4); RQ decomposition via QR"),
]

# --------------------------------------------------------------------------- liegroup

V3 = (_rand(2, 3, seed=70) - 0.5) * 1.5
V6 = (_rand(2, 6, seed=71) - 0.5) * 1.5

LIEGROUP = [
    c("liegroup", "So3.exp", lambda v: So3.exp(v).matrix(), [V3], ref="kornia.geometry.liegroup.So3.exp",
      note="tangent vectors live (2,3); returns the rotation matrices"),
    c("liegroup", "So3.log", lambda q: So3.from_wxyz(q).log(), [QUATS[:2]], ref="kornia.geometry.liegroup.So3.log",
      note="unit quaternions live (2,4) wxyz; So3 built inside the graph"),
    c("liegroup", "So3.__mul__", lambda a, b: (So3.exp(a) * So3.exp(b)).matrix(), [V3, V3.flip(0)],
      ref="kornia.geometry.liegroup.So3", note="two tangent batches live (2,3); composition of So3.exp results"),
    c("liegroup", "Se3.exp", lambda v: Se3.exp(v).matrix(), [V6], ref="kornia.geometry.liegroup.Se3.exp",
      note="twists live (2,6); returns the 4x4 matrices"),
    c("liegroup", "Se3.log", lambda m: Se3.from_matrix(m).log(), [Se3.exp(V6).matrix().detach()],
      ref="kornia.geometry.liegroup.Se3.log", note="rigid transforms live (2,4,4); Se3.from_matrix inside the graph"),
    c("liegroup", "So2.exp", lambda t: So2.exp(t).matrix(), [torch.tensor([0.3, -1.1])],
      ref="kornia.geometry.liegroup.So2.exp", note="angles live (2,)"),
    c("liegroup", "Se2.exp", lambda v: Se2.exp(v).matrix(), [(_rand(2, 3, seed=72) - 0.5) * 2],
      ref="kornia.geometry.liegroup.Se2.exp", note="tangent vectors live (2,3)"),
]

# --------------------------------------------------------------------------- linalg

LINALG = [
    c("linalg", "transform_points", KL.transform_points, [_homography(8), PTS],
      note="trans live (1,3,3); points live (1,8,2)"),
    c("linalg", "compose_transformations", KL.compose_transformations, [_rt4x4(9), _rt4x4(10)],
      note="two rigid transforms live (1,4,4)"),
    c("linalg", "inverse_transformation", KL.inverse_transformation, [_rt4x4(11)], note="rigid transform live (1,4,4)"),
    c("linalg", "point_line_distance", KL.point_line_distance, [PTS, _rand(1, 8, 3, seed=44) - 0.5],
      note="points live (1,8,2); lines live (1,8,3)"),
]

# --------------------------------------------------------------------------- homography

LS1 = _rand(1, 6, 2, 2, seed=80, lo=2.0, hi=30.0)
LS2 = KL.transform_points(H, LS1.reshape(1, 12, 2)).reshape(1, 6, 2, 2)

HOMOGRAPHY = [
    c("homography", "find_homography_dlt[lu]", KH.find_homography_dlt, [PTS, PTS2],
      note="correspondences live (1,8,2); solver='lu' (default)"),
    c("homography", "find_homography_dlt[svd][weighted]", KH.find_homography_dlt, [PTS, PTS2, torch.ones(1, 8)],
      {"solver": "svd"}, note="correspondences live (1,8,2); weights live (1,8); solver='svd' baked"),
    c("homography", "find_homography_dlt_iterated", KH.find_homography_dlt_iterated, [PTS, PTS2, torch.ones(1, 8)],
      {"n_iter": 3}, note="correspondences live (1,8,2); weights live (1,8); n_iter=3 baked"),
    c("homography", "find_homography_lines_dlt", KH.find_homography_lines_dlt, [LS1, LS2],
      note="line segments live (1,6,2,2)"),
    c("homography", "symmetric_transfer_error", KH.symmetric_transfer_error, [PTS, PTS2, H],
      note="points live (1,8,2); H live (1,3,3)"),
    c("homography", "sample_is_valid_for_homography", KH.sample_is_valid_for_homography, [PTS[:, :4], PTS2[:, :4]],
      note="4-point samples live (1,4,2); returns a bool mask"),
]

# --------------------------------------------------------------------------- boxes

BOXES = [
    c("boxes", "Boxes.from_tensor", lambda b: Boxes.from_tensor(b, mode="xyxy").to_tensor(mode="xywh"), [_boxes()],
      ref="kornia.geometry.boxes.Boxes.from_tensor", note="boxes live (1,3,4) xyxy; converted to xywh (to_tensor)"),
    c("boxes", "Boxes.transform_boxes", lambda b, m: Boxes.from_tensor(b).transform_boxes(m).to_tensor(),
      [_boxes(), _homography(12)], ref="kornia.geometry.boxes.Boxes.transform_boxes",
      note="boxes live (1,3,4) xyxy; M live (1,3,3)"),
    c("boxes", "Boxes.to_mask", lambda b: Boxes.from_tensor(b).to_mask(32, 32), [_boxes()],
      ref="kornia.geometry.boxes.Boxes.to_mask", note="boxes live (1,3,4) xyxy; height=32, width=32 baked"),
    c("boxes", "Boxes3D.from_tensor",
      lambda b: Boxes3D.from_tensor(b, mode="xyzxyz").to_tensor(mode="xyzwhd"),
      [torch.cat([_rand(1, 2, 3, seed=33, hi=4.0), _rand(1, 2, 3, seed=34, lo=5.0, hi=9.0)], -1)],
      ref="kornia.geometry.boxes.Boxes3D.from_tensor", note="3D boxes live (1,2,6) xyzxyz; converted to xyzwhd"),
]

# --------------------------------------------------------------------------- depth, subpix, calibration

DEPTH = _rand(1, 1, 16, 16, seed=90, lo=2.0, hi=4.0)
K16 = torch.tensor([[[20.0, 0.0, 8.0], [0.0, 20.0, 8.0], [0.0, 0.0, 1.0]]])

OTHER = [
    c("depth", "depth_to_3d_v2", KD.depth_to_3d_v2, [DEPTH[:, 0], K16], note="depth live (1,16,16); K live (1,3,3)"),
    c("depth", "warp_frame_depth", KD.warp_frame_depth, [_rand(1, 3, 16, 16, seed=91), DEPTH, _rt4x4(14), K16],
      note="image (1,3,16,16), depth (1,1,16,16), src_trans_dst (1,4,4), K (1,3,3) all live"),
    c("subpix", "spatial_soft_argmax2d", KS.spatial_soft_argmax2d, [_rand(1, 4, 16, 16, seed=92)],
      note="heatmaps live (1,4,16,16); temperature default"),
    c("subpix", "nms2d", KS.nms2d, [_rand(1, 4, 16, 16, seed=94)], {"kernel_size": (3, 3)},
      note="responses live (1,4,16,16); kernel_size=(3,3) baked"),
    c("calibration", "undistort_points", KCAL.undistort_points,
      [PTS, _K(), torch.tensor([[0.05, -0.01, 0.001, 0.001, 0.0]])],
      note="points live (1,8,2); K live (1,3,3); dist live (1,5)"),
    c("calibration", "solve_pnp_dlt", KCAL.solve_pnp_dlt, [S["X"], S["x2"], S["K"]],
      note="world points live (1,12,3); image points live (1,12,2); K live (1,3,3); SVD-based"),
]

# --------------------------------------------------------------------------- more of Kornia's page
# operators Kornia's own page probes that neither a docstring example nor a test of kornia calls on tensors

# resolved here, once: a target that calls importlib inside the captured call breaks dynamo's graph
_KG = importlib.import_module("kornia.geometry")
Vector3 = importlib.import_module("kornia.geometry.vector").Vector3
Quaternion = importlib.import_module("kornia.geometry.quaternion").Quaternion
VideoBoxes = importlib.import_module("kornia.geometry.boxes").VideoBoxes
ParametrizedLine = importlib.import_module("kornia.geometry.ray").Ray  # kornia.geometry.ray.Ray is ParametrizedLine
VOLUME = _rand(1, 1, 4, 16, 16, seed=95)
RANSAC_H = _KG.RANSAC("homography")
CUBE = torch.tensor([[[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]])
PADDING = torch.tensor([[2, 2, 3, 3]])  # left, right, top, bottom


def _boxes_method(name, method, extra=(), note=""):
    """``Boxes.from_tensor(boxes).<method>(...)``; the Boxes it returns is read as its tensor."""
    return c("boxes", f"Boxes.{name}", lambda b, *more: method(Boxes.from_tensor(b), *more), [_boxes(), *extra],
             ref=f"kornia.geometry.boxes.Boxes.{name}", note="boxes live (1,3,4) xyxy" + note)


MORE = [
    c("transform", "vflip", KT.vflip, [_rgb()], note=f"image live {IMG}"),
    c("transform", "rot180", KT.rot180, [_rgb()], note=f"image live {IMG}"),
    c("transform", "rotate3d", KT.rotate3d, [VOLUME, torch.tensor([10.0]), torch.tensor([-5.0]), torch.tensor([20.0])],
      note="volume live (1,1,4,16,16); yaw, pitch, roll live (1,) in degrees"),
    c("transform", "get_translation_matrix2d", KT.get_translation_matrix2d, [torch.tensor([[2.0, -3.0]])],
      note="translations live (1,2)"),
    c("transform", "get_perspective_transform3d", KT.get_perspective_transform3d,
      [CUBE, CUBE * 1.1 + 0.05 * (_rand(1, 8, 3, seed=96) - 0.5)], note="8 source and target points live (1,8,3)"),
    c("transform", "get_affine_matrix3d", KT.get_affine_matrix3d,
      [torch.tensor([[1.0, 2.0, 0.5]]), torch.tensor([[8.0, 8.0, 2.0]]), torch.tensor([[1.1, 0.9, 1.0]]),
       torch.tensor([[10.0, -5.0, 20.0]])],
      note="translations, center, scale and angles live (1,3); no shears"),
    c("transform", "projection_from_Rt", KT.projection_from_Rt, [_rotmat(97), _rand(1, 3, 1, seed=98)],
      note="R live (1,3,3); t live (1,3,1)"),
    c("transform", "resize_to_be_divisible", KT.resize_to_be_divisible, [_rand(1, 3, 30, 45, seed=99)],
      {"divisible_factor": 16}, note="image live (1,3,30,45); divisible_factor=16 baked (the output size is "
                                     "computed from the input's)"),
    c("calibration", "tilt_projection", KCAL.tilt_projection, [torch.tensor([0.1]), torch.tensor([-0.05])],
      note="taux, tauy live (1,) in radians"),
    c("camera", "reproject_disparity_to_3D",
      importlib.import_module("kornia.geometry.camera.stereo").reproject_disparity_to_3D,
      [_rand(1, 16, 16, 1, seed=61, lo=1.0, hi=8.0),
       torch.tensor([[[1.0, 0.0, 0.0, -16.0], [0.0, 1.0, 0.0, -15.0], [0.0, 0.0, 0.0, 40.0], [0.0, 0.0, 0.25, 0.0]]])],
      ref="kornia.geometry.camera.stereo.reproject_disparity_to_3D",
      note="disparity live (1,16,16,1); Q live (1,4,4)"),
    c("camera", "StereoCamera.Q", lambda left, right: StereoCamera(left, right).Q,
      [torch.cat([_K(), torch.zeros(1, 3, 1)], -1),
       torch.cat([_K(), torch.tensor([[[-40.0 * 0.1], [0.0], [0.0]]])], -1)],
      ref="kornia.geometry.camera.StereoCamera.Q",
      note="rectified left/right projection matrices live (1,3,4); the disparity-to-depth matrix Q"),
    c("camera", "PinholeCamera.intrinsics_inverse",
      lambda intr, extr: PinholeCamera(intr, extr, torch.tensor([32.0]), torch.tensor([32.0])).intrinsics_inverse(),
      [PC_INT, PC_EXT], ref="kornia.geometry.camera.PinholeCamera.intrinsics_inverse",
      note="intrinsics, extrinsics live (1,4,4); height/width built inside as constants"),
    c("depth", "depth_from_point", KD.depth_from_point if hasattr(KD, "depth_from_point")
      else importlib.import_module("kornia.geometry").depth_from_point,
      [_rotmat(100), _rand(1, 3, 1, seed=101), _rand(1, 3, seed=102, lo=1.0, hi=3.0)],
      ref="kornia.geometry.depth_from_point", note="R live (1,3,3); t live (1,3,1); X live (1,3)"),
    c("epipolar", "project_to_essential", KEP.project_to_essential, [_rand(1, 3, 3, seed=103) - 0.5],
      note="a 3x3 matrix live (1,3,3), projected onto the essential manifold (SVD)"),
    c("epipolar", "random_intrinsics", KEP.random_intrinsics, [], {"low": 10.0, "high": 20.0}, check=False,
      note="no tensor input; low=10, high=20 baked; draws random numbers, so the outputs are not compared"),
    c("linalg", "batched_dot_product", KL.batched_dot_product, [_rand(2, 5, 3, seed=104), _rand(2, 5, 3, seed=105)],
      note="x, y live (2,5,3)"),
    c("linalg", "batched_squared_norm", KL.batched_squared_norm, [_rand(2, 5, 3, seed=106)], note="x live (2,5,3)"),
    c("line", "fit_line", importlib.import_module("kornia.geometry.line").fit_line, [_rand(1, 10, 3, seed=107)],
      ref="kornia.geometry.line.fit_line",
      note="points live (1,10,3); returns a ParametrizedLine, read as its origin and direction (SVD)"),
    c("plane", "fit_plane", lambda p: _KG.fit_plane(Vector3(p)),
      [torch.cat([_rand(10, 2, seed=108), 0.01 * _rand(10, 1, seed=109)], -1)], ref="kornia.geometry.fit_plane",
      note="points live (10,3), passed as a Vector3; returns a Hyperplane, read as its normal and offset (SVD)"),
    c("subpix", "IterativeQuadInterp3d", KS.IterativeQuadInterp3d(), [_rand(1, 1, 3, 16, 16, seed=110)],
      note="nn.Module; scale-space responses live (1,1,3,16,16); n_iters=5 held; returns coordinates and values"),
    _boxes_method("clamp", lambda b, lo, hi: b.clamp(lo, hi),
                  [torch.tensor([[1.0, 2.0]]), torch.tensor([[12.0, 14.0]])],
                  note="; bounds live (1,2) each"),
    _boxes_method("clone", lambda b: b.clone()),
    _boxes_method("filter_boxes_by_area", lambda b: b.filter_boxes_by_area(20.0, 150.0),
                  note="; min_area=20, max_area=150 baked (the boxes outside become zeros)"),
    _boxes_method("translate", lambda b, size: b.translate(size), [torch.tensor([[2.0, 3.0]])],
                  note="; size live (1,2)"),
    _boxes_method("pad", lambda b, pad: b.pad(pad), [PADDING], note="; padding live (1,4) int64"),
    _boxes_method("unpad", lambda b, pad: b.unpad(pad), [PADDING], note="; padding live (1,4) int64"),
    _boxes_method("merge", lambda b, other: b.merge(Boxes.from_tensor(other)), [_boxes() + 1.0],
                  note="; a second Boxes live (1,3,4)"),
    _boxes_method("type", lambda b: b.type(torch.float64), note="; cast to float64"),
    c("boxes", "VideoBoxes.from_tensor",
      lambda b: VideoBoxes.from_tensor(b).to_tensor(mode="xywh"),
      [torch.stack([Boxes.from_tensor(_boxes()).data, Boxes.from_tensor(_boxes() + 1.0).data], 1)],
      ref="kornia.geometry.boxes.VideoBoxes.from_tensor",
      note="box corners live (1,2,3,4,2): 2 frames of 3 boxes; converted to xywh (to_tensor)"),
    c("boxes", "VideoBoxes.to_tensor",
      lambda b: VideoBoxes.from_tensor(b).to_tensor(mode="xyxy"),
      [torch.stack([Boxes.from_tensor(_boxes()).data, Boxes.from_tensor(_boxes() + 1.0).data], 1)],
      ref="kornia.geometry.boxes.VideoBoxes.to_tensor",
      note="box corners live (1,2,3,4,2): 2 frames of 3 boxes, read back as xyxy"),
    _boxes_method("index_put", lambda b, v: b.index_put((torch.tensor([0]), torch.tensor([1])), v),
                  [Boxes.from_tensor(_boxes() + 2.0).data[:, 1]], note="; box 1 replaced by corners live (1,4,2)"),
    c("liegroup", "So2", lambda re, im: So2(torch.complex(re, im)),
      [torch.tensor([0.8, 0.6]), torch.tensor([0.6, -0.8])], ref="kornia.geometry.liegroup.So2",
      note="real and imaginary parts live (2,); builds an So2, read as its complex number"),
    c("liegroup", "Quaternion.__pow__",
      lambda q: Quaternion(q) ** 2.0, [_quat(117, 2)],
      ref="kornia.geometry.Quaternion.__pow__", note="unit quaternions live (2,4); exponent 2 baked"),
    c("liegroup", "So3.Jl", So3.Jl, [_rand(2, 3, seed=111) - 0.5], ref="kornia.geometry.liegroup.So3.Jl",
      note="tangent vectors live (2,3); the left Jacobian"),
    c("liegroup", "So3.Jr", So3.Jr, [_rand(2, 3, seed=112) - 0.5], ref="kornia.geometry.liegroup.So3.Jr",
      note="tangent vectors live (2,3); the right Jacobian"),
    c("liegroup", "Quaternion.polar_angle",
      lambda q: Quaternion(q).polar_angle, [_quat(113, 2)],
      ref="kornia.geometry.Quaternion.polar_angle", note="unit quaternions live (2,4); a property"),
    c("plane", "Hyperplane.from_vector",
      lambda n, e: _KG.Hyperplane.from_vector(Vector3(n), Vector3(e)),
      [torch.tensor([0.0, 0.0, 1.0]), torch.tensor([1.0, 2.0, 3.0])], ref="kornia.geometry.Hyperplane.from_vector",
      note="normal and a point live (3,); returns a Hyperplane, read as its normal and offset"),
    c("line", "Ray", lambda o, d: ParametrizedLine(o, d).point_at(torch.tensor(2.0)),
      [torch.tensor([0.0, 1.0, 2.0]), torch.tensor([1.0, 0.0, 0.0])], ref="kornia.geometry.ParametrizedLine",
      note="origin and direction live (3,); kornia.geometry.ray.Ray is ParametrizedLine: the point at distance 2"),
    c("homography", "RANSAC.estimate_model_from_minsample", RANSAC_H,
      [S4 := _rand(3, 4, 2, seed=114, hi=32.0), S4 + 0.5], method="estimate_model_from_minsample",
      ref="kornia.geometry.RANSAC.estimate_model_from_minsample",
      note="3 minimal samples of 4 correspondences live (3,4,2) each; homography model held"),
    c("homography", "RANSAC.verify", RANSAC_H,
      [P1 := _rand(20, 2, seed=115, hi=32.0), P1 + 0.3, _homography(116, batch=3)], {"inl_th": 2.0},
      method="verify", ref="kornia.geometry.RANSAC.verify",
      note="20 correspondences live (20,2) each; 3 candidate homographies live (3,3,3); inl_th=2 baked"),
]

HAND = [*TRANSFORM, *CONVERSIONS, *CAMERA, *EPIPOLAR, *LIEGROUP, *LINALG, *HOMOGRAPHY, *BOXES, *OTHER, *MORE]

# every call a docstring example makes on tensors (a hand-written case with the same ref and input shapes
# wins), then one call from kornia's own tests for each operator neither reaches (see showcase/kornia.rst)
SECTIONS = ("transform", "conversions", "camera", "epipolar", "liegroup", "linalg", "homography", "boxes", "depth",
            "subpix", "calibration", "line", "plane")


def _section_of(module):
    """kornia.geometry.transform.affwarp -> "transform"; modules without a section of their own stay unnamed."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in SECTIONS else ""


# one class, one API entry: name it as the hand-written cases do (autodoc refuses a class twice)
SAME_AS_HAND = {"kornia.geometry.PinholeCamera.": "kornia.geometry.camera.PinholeCamera.",
                **{f"kornia.geometry.{group}.": f"kornia.geometry.liegroup.{group}." for group in ("So2", "So3", "Se2",
                                                                                                  "Se3")}}


def _hand_ref(spec):
    for short, long in SAME_AS_HAND.items():
        if spec.ref.startswith(short):
            spec.ref = long + spec.ref[len(short):]
    return spec


DOC = cases_from_docstrings(PKG)
CASES = HAND + [_hand_ref(s) for s in into_sections(DOC + from_tests(PKG, "geometry", HAND, DOC), _section_of)]
