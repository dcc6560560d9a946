"""Quantisation of row groups (MoE tokens per expert): aclnnGroupedDynamicBlockQuant / V2 and
aclnnGroupedDynamicMxQuant / V2 (their docs). The groups are row ranges of x [M, N] (or [B, M, N]) ending at the
cumulative counts of the group list (groupListType 1: the list holds each group's count); each group is blocked on
its own, so its last row block may be short, and the groups' scale rows follow one another in the scale output
(sized for the worst case: M // rowBlock + g rows; rows past the last group's are left as they are)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.quant.mx_quant import check_round_mode

FP8_OUT = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)
MX8_OUT = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2)


def group_bounds(values, rows, counts):
    """[(start, end)] of each group's rows, clipped to the tensor."""
    ends = np.cumsum(values) if counts else np.asarray(values, np.int64)
    bounds, start = [], 0
    for end in ends:
        end = int(min(max(end, start), rows))
        bounds.append((start, end))
        start = end
    return bounds


class GroupedDynamicBlockQuant(AclnnOp):
    name = "aclnnGroupedDynamicBlockQuant"
    inputs = ("x", "groupList")
    outputs = ("yOut", "scaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "groupList": P.codes("INT32 INT64"), "yOut": FP8_OUT,
                "scaleOut": [P.FLOAT]}

    def dst_max(self, a):
        return 0.0

    def check(self, a):
        checks.not_null(a, "x", "groupList", "yOut", "scaleOut")
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        checks.dtype_in("groupList", a.groupList, P.codes("INT32 INT64"))
        checks.dtype_in("yOut", a.yOut, FP8_OUT)
        checks.dtype_match("scaleOut", a.scaleOut, P.FLOAT)
        if a.dstType != a.yOut.dtype:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s." % (a.dstType,
                                                                                     dtypes.serial_name(a.yOut.dtype)))
        if a.groupListType not in (0, 1):
            raise status.param_invalid("groupListType only supports 0 and 1, but got %d." % a.groupListType)
        if a.rowBlockSize <= 0 or a.colBlockSize <= 0:
            raise status.param_invalid("rowBlockSize and colBlockSize must be positive.")
        if a.x.ndim not in (2, 3):
            raise status.param_invalid("x should be 2-D or 3-D, but got %s." % checks.shape_text(a.x.shape))
        checks.dim_is("groupList", a.groupList, 1)
        checks.same_shape("x", a.x, "yOut", a.yOut)
        m, n = a.x.shape[-2:]
        expected = tuple(a.x.shape[:-2]) + (m // a.rowBlockSize + a.groupList.shape[0], -(-n // a.colBlockSize))
        checks.shape_is("scaleOut", a.scaleOut, expected, checks.shape_text(expected))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        batch = x.reshape((-1,) + x.shape[-2:])
        y = np.zeros(batch.shape, np.float32)
        scales = v["scaleOut"].reshape((-1,) + v["scaleOut"].shape[-2:])
        rb, cb = a.rowBlockSize, a.colBlockSize
        qmax = self.dst_max(a) or Q.target_max(a.yOut.dtype)
        for b in range(batch.shape[0]):
            row = 0
            for start, end in group_bounds(v["groupList"].astype(np.int64), batch.shape[1], a.groupListType == 1):
                for lo in range(start, end, rb):
                    block_rows = batch[b, lo:min(lo + rb, end)]
                    for c, col in enumerate(range(0, batch.shape[2], cb)):
                        block = block_rows[:, col:col + cb]
                        amax = np.max(np.abs(block)) if block.size else np.float32(0)
                        with np.errstate(divide="ignore", invalid="ignore"):
                            scale = np.float32(min(amax / np.float32(qmax), 1 / a.minScale if a.minScale else np.inf))
                            y[b, lo:lo + block.shape[0], col:col + cb] = block / scale
                        scales[b, row, c] = scale
                    row += 1
        mode = "round" if a.yOut.dtype == Q.HIFLOAT8 else "rint"
        Q.store(v["yOut"], a.yOut, Q.quantize(y.reshape(v["yOut"].shape), a.yOut.dtype, mode))


class GroupedDynamicBlockQuantV2(GroupedDynamicBlockQuant):
    name = "aclnnGroupedDynamicBlockQuantV2"

    def dst_max(self, a):
        return float(a.dstTypeMax)


class GroupedDynamicMxQuant(AclnnOp):
    """MX along rows (axis 0) within each group of x [M, N]: per group ceil(rows / blocksize) scales, padded to
    even and stored as pairs, groups one after the other in mxscale [(M / (2·blocksize) + g), N, 2]."""
    name = "aclnnGroupedDynamicMxQuant"
    inputs = ("x", "groupIndex")
    outputs = ("y", "mxscale")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "groupIndex": P.codes("INT32"), "y": MX8_OUT,
                "mxscale": [Q.FLOAT8_E8M0]}

    def scale_alg(self, a):
        return 0, 0.0

    def check(self, a):
        checks.not_null(a, "x", "groupIndex", "y", "mxscale")
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        checks.dtype_in("groupIndex", a.groupIndex, P.codes("INT32"))
        checks.dtype_in("y", a.y, MX8_OUT)
        checks.dtype_match("mxscale", a.mxscale, Q.FLOAT8_E8M0)
        if a.dstType != a.y.dtype:
            raise status.param_invalid("dstType %d must be the dtype of y %s." % (a.dstType,
                                                                                  dtypes.serial_name(a.y.dtype)))
        a.mode = a.roundMode or "rint"
        check_round_mode(a.mode, a.dstType)
        if a.blocksize != 32:
            raise status.param_invalid("blocksize only supports 32, but got %d." % a.blocksize)
        checks.dim_is("x", a.x, 2)
        checks.dim_is("groupIndex", a.groupIndex, 1)
        checks.same_shape("x", a.x, "y", a.y)
        m, n = a.x.shape
        expected = (m // (2 * a.blocksize) + a.groupIndex.shape[0], n, 2)
        checks.shape_is("mxscale", a.mxscale, expected, checks.shape_text(expected))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        y = np.zeros(x.shape, np.float32)
        codes = v["mxscale"].view(np.uint8)
        pair = 0
        alg, dst_max = self.scale_alg(a)
        for start, end in group_bounds(v["groupIndex"].astype(np.int64), x.shape[0], False):
            if end <= start:
                continue
            elements, group_codes = mx.quantize(x[start:end], 0, a.blocksize, a.y.dtype, a.mode, alg, dst_max)
            y[start:end] = elements
            codes[pair:pair + group_codes.shape[0]] = group_codes
            pair += group_codes.shape[0]
        mx.store_elements(v["y"], a.y, y)


class GroupedDynamicMxQuantV2(GroupedDynamicMxQuant):
    name = "aclnnGroupedDynamicMxQuantV2"

    def scale_alg(self, a):
        return a.scaleAlg, float(a.dstTypeMax)
