"""Gradients and grids of training steps (ops-math math/grouped_bias_add_grad, affine_grid, amp_update_scale):
aclnnGroupedBiasAddGrad(V2) sums gradY per group (groups along dim 0 of a 3-D gradY, or row ranges of a 2-D gradY
given by groupIdx: cumulative ends for groupIdxType 0, counts for 1); aclnnAffineGrid is PyTorch's affine_grid
(theta (N,2,3) or (N,3,4) over the normalized grid of `size`); aclnnAmpUpdateScale is PyTorch's
_amp_update_scale_ (back off on an inf, grow after growthInterval clean steps). fp16/bf16 in fp32."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_product

HALF_FLOAT = per_product("FLOAT16 FLOAT", "BF16")
GROUP_INDEX = lambda: codes("INT32 INT64")
MAX_GROUPS = 2048


class GroupedBiasAddGrad(AclnnOp):
    """nulls → dtypes (out of gradY's) → shapes (3-D gradY without groupIdx, 2-D with a 1-D groupIdx of at most
    2048 groups) → out (groups, H)."""
    name = "aclnnGroupedBiasAddGrad"
    inputs, outputs = ("gradY", "groupIdxOptional"), ("out",)

    def dtype_table(self):
        return {"gradY": HALF_FLOAT(), "groupIdxOptional": GROUP_INDEX(), "out": HALF_FLOAT()}

    def check(self, a):
        checks.not_null(a, "gradY", "out")
        checks.dtype_in("gradY", a.gradY, HALF_FLOAT())
        checks.dtype_in("out", a.out, HALF_FLOAT())
        checks.dtype_match("out", a.out, a.gradY.dtype)
        index = a.groupIdxOptional
        if index is not None:
            checks.dtype_in("groupIdxOptional", index, GROUP_INDEX())
        if index is None:
            if a.gradY.ndim != 3:
                raise status.param_invalid("the grad_y of input should be 3D tensor when group_idx is null.")
            groups, width = a.gradY.shape[0], a.gradY.shape[2]
        else:
            if a.gradY.ndim != 2 or index.ndim != 1:
                raise status.param_invalid("the gradY of input should be 2D tensor when groupIdxOptional is not null "
                                           "and groupIdxOptional must be 1D tensor.")
            groups, width = index.shape[0], a.gradY.shape[1]
            if groups > MAX_GROUPS:
                raise status.param_invalid("input group_idx shape not support more than %d, but got %d."
                                           % (MAX_GROUPS, groups))
        if a.out.ndim != 2:
            raise status.param_invalid("The dimensions of output should be two, but got %d." % a.out.ndim)
        if tuple(a.out.shape) != (groups, width):
            raise status.param_invalid("The shape of out should be [%d, %d], but got [%d, %d]."
                                       % ((groups, width) + tuple(a.out.shape)))
        kind = getattr(a, "groupIdxType", 0)
        if kind not in (0, 1):
            raise status.param_invalid("group_idx_type should be 0 or 1, but current is %d" % kind)

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        y = P.widened(v["gradY"])
        if a.groupIdxOptional is None:
            P.store(out, np.sum(y, axis=1))
            return
        index = v["groupIdxOptional"].astype(np.int64)
        ends = np.cumsum(index) if getattr(a, "groupIdxType", 0) == 1 else index
        ends = np.clip(ends, 0, y.shape[0])
        starts = np.concatenate([[0], ends[:-1]])
        sums = np.stack([y[s:e].sum(axis=0) if e > s else np.zeros(y.shape[1], y.dtype)
                         for s, e in zip(starts, ends)])
        P.store(out, sums)


class GroupedBiasAddGradV2(GroupedBiasAddGrad):
    name = "aclnnGroupedBiasAddGradV2"


def _linspace(n, align_corners):
    if n <= 1:
        return np.zeros(max(n, 0), np.float32)
    grid = np.linspace(-1, 1, n, dtype=np.float32)
    return grid if align_corners else grid * np.float32((n - 1) / n)


class AffineGrid(AclnnOp):
    """nulls → theta's dtype, out of theta's → theta non-empty, (N,2,3) for a 4-D size or (N,3,4) for 5-D →
    out (N,H,W,2) or (N,D,H,W,3)."""
    name = "aclnnAffineGrid"
    inputs, outputs = ("theta",), ("out",)

    def dtype_table(self):
        return {"theta": HALF_FLOAT(), "out": HALF_FLOAT()}

    def check(self, a):
        checks.not_null(a, "theta", "size", "out")
        checks.dtype_in("theta", a.theta, HALF_FLOAT())
        checks.dtype_match("out", a.out, a.theta.dtype)
        if a.theta.is_empty():
            raise status.param_invalid("Expected theta to be not null tensor.")
        size, shape = tuple(a.size), tuple(a.theta.shape)
        if len(size) == 4:
            if len(shape) != 3 or shape[1:] != (2, 3) or shape[0] != size[0]:
                raise status.param_invalid("Expected a batch of 2D affine matrices of shape Nx2x3 for size [%d, %d, "
                                           "%d, %d]. Got %s." % (size + (checks.shape_text(shape),)))
            expected = (size[0], size[2], size[3], 2)
        elif len(size) == 5:
            if len(shape) != 3 or shape[1:] != (3, 4) or shape[0] != size[0]:
                raise status.param_invalid("Expected a batch of 3D affine matrices of shape Nx3x4 for size [%d, %d, "
                                           "%d, %d, %d]. Got %s." % (size + (checks.shape_text(shape),)))
            expected = (size[0], size[2], size[3], size[4], 3)
        else:
            raise status.param_invalid("AffineGridGenerator needs 4d or 5d size(input).")
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        theta = P.widened(v["theta"])
        axes = [_linspace(n, a.alignCorners) for n in tuple(a.size)[2:]]   # (D,) H, W
        mesh = np.meshgrid(*axes, indexing="ij")
        base = np.stack(list(mesh[::-1]) + [np.ones_like(mesh[0])], axis=-1)     # x, y(, z), 1
        grid = base.reshape(-1, base.shape[-1]) @ np.swapaxes(theta, 1, 2)  # (N, points, 2|3)
        P.store(out, grid.reshape(out.shape))


class AmpUpdateScale(AclnnOp):
    """Checks: nulls → dtypes (scales FLOAT, tracker INT32) → one-element tensors."""
    name = "aclnnAmpUpdateScale"
    inputs = ("currentScale", "growthTracker", "foundInf")
    outputs = ("updatedScale", "updatedGrowthTracker")

    def dtype_table(self):
        return {"currentScale": codes("FLOAT"), "growthTracker": codes("INT32"), "foundInf": codes("FLOAT"),
                "updatedScale": codes("FLOAT"), "updatedGrowthTracker": codes("INT32")}

    def check(self, a):
        names = self.inputs + self.outputs
        checks.not_null(a, *names)
        for name, allowed in self.dtype_table().items():
            checks.dtype_in(name, getattr(a, name), allowed)
        for name in names:
            if getattr(a, name).numel() != 1:
                raise status.param_invalid("%s must be a one-element tensor, but got shape %s."
                                           % (name, checks.shape_text(getattr(a, name).shape)))

    def compute(self, a, v, workspace):
        scale = np.float32(v["currentScale"].reshape(-1)[0])
        tracker = int(v["growthTracker"].reshape(-1)[0])
        if float(v["foundInf"].reshape(-1)[0]) != 0:
            scale, tracker = scale * np.float32(a.backoffFactor), 0
        else:
            tracker += 1
            if tracker == a.growthInterval:
                grown = scale * np.float32(a.growthFactor)
                scale, tracker = (grown if np.isfinite(grown) else scale), 0
        P.store(v["updatedScale"], scale)
        P.store(v["updatedGrowthTracker"], tracker)
