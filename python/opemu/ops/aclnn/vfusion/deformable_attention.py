"""aclnnMultiScaleDeformableAttnFunction and aclnnMultiScaleDeformableAttentionGrad (ops-nn vfusion/
multi_scale_deformable_attn_function, multi_scale_deformable_attention_grad): Deformable DETR's attention,
mmcv's ms_deform_attn.

value (bs, keys, heads, C) holds every level's feature map flattened (level l: spatialShape[l] = (H, W) rows
from levelStartIndex[l]); each query samples, per head, level and point, the map at location (x, y in [0, 1],
the last axis, as mmcv and the torch adapters pass it) bilinearly (grid_sample's align_corners=False: pixel
x·W − 0.5; outside the map reads 0) and sums the samples weighted by attnWeight:

    output[b, q, h·C + c] = Σ_l Σ_p attnWeight[b, q, h, l, p] · bilinear(value_l[b, :, h, c], location[b, q, h, l, p])

The gradient writes gradValue (scatter-added), gradLocation and gradAttnWeight from gradOutput. Computed in
fp32 (the kernels cast fp16/bf16 to fp32 on the paths that need it) and rounded once into each output.
Phase 1 as the forward's op_api reads (hicann/ops-nn@e5c3fa93): nulls → dtypes (value, location, attnWeight,
output: FLOAT, FLOAT16, BF16 (no BF16 on 310P), one dtype; spatialShape, levelStartIndex INT32/INT64) → ranks
(4, 2, 1, 6, 5, 3) → spatialShape (L, 2) and location's last axis 2 → queries ≥ 32, heads, levels and points
≤ 16, channels a multiple of 8 up to 256 → the levels of spatialShape, location and attnWeight equal."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

DATA = P.per_product("FLOAT FLOAT16", "BF16")
INDEX = P.codes("INT32 INT64")
F32 = np.dtype(np.float32)
RANKS = {"value": 4, "spatialShape": 2, "levelStartIndex": 1, "location": 6, "attnWeight": 5}


def _check(a, data_names, out_ranks):
    checks.not_null(a, *(list(RANKS) + list(out_ranks)))
    for name in data_names:
        checks.dtype_in(name, getattr(a, name), DATA())
    checks.dtype_in("spatialShape", a.spatialShape, INDEX)
    checks.dtype_in("levelStartIndex", a.levelStartIndex, INDEX)
    for name in data_names[1:]:
        checks.dtype_match(name, getattr(a, name), a.value.dtype)
    for name, rank in list(RANKS.items()) + list(out_ranks.items()):
        checks.dim_is(name, getattr(a, name), rank)
    if a.spatialShape.shape[1] != 2:
        raise status.param_invalid("The last axis of spatialShape should be 2, bug got input %d" % a.spatialShape.shape[1])
    if a.location.shape[5] != 2:
        raise status.param_invalid("The last axis of location should be 2, bug got input %d" % a.location.shape[5])
    bs, queries, heads, levels, points, _ = a.location.shape
    if queries < 32:
        raise status.param_invalid("numQueries must be greater than or equal to 32, bug got input %d" % queries)
    for what, count in (("numHeads", heads), ("numLevels", levels), ("numPoints", points)):
        if count > 16:
            raise status.param_invalid("%s must be less than or equal to 16, bug got input %d" % (what, count))
    channels = a.value.shape[3]
    if channels % 8 or channels > 256:
        raise status.param_invalid("embedDims must be divisible by 8 and less than or equal to 256")
    if not a.spatialShape.shape[0] == levels == a.attnWeight.shape[3]:
        raise status.param_invalid("numLevels dimensions must be equal: spatialShape[0]=%d, location[3]=%d, "
                                   "attnWeight[3]=%d" % (a.spatialShape.shape[0], levels, a.attnWeight.shape[3]))
    if a.value.shape[0] != bs or a.value.shape[2] != heads or tuple(a.attnWeight.shape) != (bs, queries, heads,
                                                                                           levels, points):
        raise status.param_invalid("The shapes of value %s, location %s and attnWeight %s do not agree."
                                   % (checks.shape_text(a.value.shape), checks.shape_text(a.location.shape),
                                      checks.shape_text(a.attnWeight.shape)))


def _corners(value, shapes, starts, location):
    """Per level: (the level's values as (bs, heads, HW, C), [(flat index, weight, dweight/dx, dweight/dy)] for
    the four corners, each (bs, heads, Q·P)), and the level's (H, W)."""
    bs, queries, heads, levels, points, _ = location.shape
    for level in range(levels):
        h, w = int(shapes[level, 0]), int(shapes[level, 1])
        start = int(starts[level])
        if h <= 0 or w <= 0 or start < 0 or start + h * w > value.shape[1]:
            continue
        values = np.ascontiguousarray(value[:, start:start + h * w].transpose(0, 2, 1, 3))
        loc = location[:, :, :, level].transpose(0, 2, 1, 3, 4).reshape(bs, heads, queries * points, 2)
        x, y = loc[..., 0] * w - 0.5, loc[..., 1] * h - 0.5
        x0, y0 = np.floor(x), np.floor(y)
        fx, fy = x - x0, y - y0
        corners = []
        for dy, wy, gy in ((0, 1 - fy, -1.0), (1, fy, 1.0)):
            for dx, wx, gx in ((0, 1 - fx, -1.0), (1, fx, 1.0)):
                xi, yi = x0 + dx, y0 + dy
                valid = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
                index = np.where(valid, yi * w + xi, 0).astype(np.int64)
                corners.append((index, wy * wx * valid, gx * wy * valid * w, gy * wx * valid * h))
        yield level, values, corners


def _gather(values, index):
    return np.take_along_axis(values, index[..., None], axis=2)   # (bs, heads, Q·P, C)


class MultiScaleDeformableAttnFunction(AclnnOp):
    name = "aclnnMultiScaleDeformableAttnFunction"
    inputs = tuple(RANKS)
    outputs = ("output",)

    def dtype_table(self):
        return {"value": DATA(), "spatialShape": INDEX, "levelStartIndex": INDEX, "location": DATA(),
                "attnWeight": DATA(), "output": DATA()}

    def check(self, a):
        _check(a, ("value", "location", "attnWeight", "output"), {"output": 3})
        bs, queries, heads = a.location.shape[:3]
        checks.shape_is("output", a.output, (bs, queries, heads * a.value.shape[3]),
                        checks.shape_text((bs, queries, heads * a.value.shape[3])))

    def compute(self, a, v, workspace):
        value, location = P.as_compute(v["value"], F32), P.as_compute(v["location"], F32)
        weight = P.as_compute(v["attnWeight"], F32)
        bs, queries, heads, levels, points, _ = location.shape
        total = np.zeros((bs, heads, queries * points, value.shape[3]), F32)
        with np.errstate(all="ignore"):
            for level, values, corners in _corners(value, v["spatialShape"], v["levelStartIndex"], location):
                attn = weight[:, :, :, level].transpose(0, 2, 1, 3).reshape(bs, heads, queries * points)
                for index, w, _, _ in corners:
                    total += (attn * w)[..., None] * _gather(values, index)
        out = total.reshape(bs, heads, queries, points, -1).sum(axis=3).transpose(0, 2, 1, 3)
        P.store(v["output"], out.reshape(bs, queries, -1))


class MultiScaleDeformableAttentionGrad(AclnnOp):
    name = "aclnnMultiScaleDeformableAttentionGrad"
    inputs = tuple(RANKS) + ("gradOutput",)
    outputs = ("gradValue", "gradLocation", "gradAttnWeight")

    def dtype_table(self):
        return {name: DATA() for name in ("value", "location", "attnWeight", "gradOutput") + self.outputs}

    def check(self, a):
        _check(a, ("value", "location", "attnWeight", "gradOutput", "gradValue", "gradLocation", "gradAttnWeight"),
               {"gradOutput": 3, "gradValue": 4, "gradLocation": 6, "gradAttnWeight": 5})
        for name, like in (("gradValue", "value"), ("gradLocation", "location"), ("gradAttnWeight", "attnWeight")):
            checks.same_shape(like, getattr(a, like), name, getattr(a, name))

    def compute(self, a, v, workspace):
        value, location = P.as_compute(v["value"], F32), P.as_compute(v["location"], F32)
        weight = P.as_compute(v["attnWeight"], F32)
        bs, queries, heads, levels, points, _ = location.shape
        channels = value.shape[3]
        grad = P.as_compute(v["gradOutput"], F32).reshape(bs, queries, heads, channels).transpose(0, 2, 1, 3)
        grad = np.repeat(grad, points, axis=2)                       # (bs, heads, Q·P, C)
        grad_value = np.zeros(value.shape, F32)
        grad_location = np.zeros(location.shape, F32)
        grad_weight = np.zeros(weight.shape, F32)
        b_index = np.arange(bs)[:, None, None]
        h_index = np.arange(heads)[None, :, None]
        with np.errstate(all="ignore"):
            for level, values, corners in _corners(value, v["spatialShape"], v["levelStartIndex"], location):
                attn = weight[:, :, :, level].transpose(0, 2, 1, 3).reshape(bs, heads, queries * points)
                start = int(v["levelStartIndex"][level])
                sampled = np.zeros(attn.shape, F32)
                d_x, d_y = np.zeros(attn.shape, F32), np.zeros(attn.shape, F32)
                for index, w, dw_dx, dw_dy in corners:
                    dot = (grad * _gather(values, index)).sum(axis=-1)
                    sampled += w * dot
                    d_x += dw_dx * dot
                    d_y += dw_dy * dot
                    np.add.at(grad_value, (b_index, start + index, h_index),
                              (attn * w)[..., None] * grad)
                shape = (bs, heads, queries, points)
                grad_weight[:, :, :, level] = sampled.reshape(shape).transpose(0, 2, 1, 3)
                grad_location[:, :, :, level, :, 0] = (attn * d_x).reshape(shape).transpose(0, 2, 1, 3)
                grad_location[:, :, :, level, :, 1] = (attn * d_y).reshape(shape).transpose(0, 2, 1, 3)
        P.store(v["gradValue"], grad_value)
        P.store(v["gradLocation"], grad_location)
        P.store(v["gradAttnWeight"], grad_weight)
