"""aclnnFlatQuant / V2 / V3 (quant/flat_quant op_api): x [K, M, N] rotated by two Kronecker factors,
x'' = P1 @ (x @ P2), then quantised.

Per token (out INT4, or INT32 packing eight INT4): quantScale[k] = max|x''[k]| / (7 / clipRatio), out = x'' /
quantScale (nearest even, saturated). Per group (Ascend 950, out FLOAT4_E2M1): x'' as [K, M·N] in MX blocks of
32 with FLOAT8_E8M0 scales (common/mx), dstTypeMax choosing the scale rule (0: the element type's emax; else
S = amax / dstTypeMax rounded up to a power of two); P2 may be [0, 0] there (no right factor). The products are
the cube's: x's dtype in, fp32 sums, x' rounded to x's dtype between them.

V2 adds dstTypeMax (0 or [6, 12]); V3 a groupList over K (cumulative sizes, sizes, or [index, size] pairs):
the kernel quantises the first Σ rows (all K when the sum is 0 or past K) and zeroes the rest of out and
quantScale."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm.rms_common import round_to

E8M0 = dtypes.acl("FLOAT8_E8M0")
INT64 = dtypes.acl("INT64")
MAX_K, MAX_MN, MAX_GROUPS = 262144, 256, 1024
# per NPU arch (A2/A3: DAV_2201, 950: DAV_3510); another product finds no list and fails the dtype check
IN_TYPES = {"A2": P.codes("FLOAT16 BF16"), "A3": P.codes("FLOAT16 BF16"), "950": P.codes("FLOAT16 BF16")}
OUT_TYPES = {"A2": (Q.INT32, Q.INT4), "A3": (Q.INT32, Q.INT4), "950": (Q.INT32, Q.INT4, Q.FLOAT4_E2M1)}
SCALE_TYPES = {"A2": (P.FLOAT,), "A3": (P.FLOAT,), "950": (P.FLOAT, E8M0)}


def _types(table):
    return table.get(_products.line(), ())


def _invalid(message):
    return status.param_invalid(message)


class FlatQuant(AclnnOp):
    name = "aclnnFlatQuant"
    inputs = ("x", "kroneckerP1", "kroneckerP2")
    outputs = ("out", "quantScale")
    products = _products.describe(("A2", "A3", "950"))

    def dtype_table(self):
        return {"x": _types(IN_TYPES), "kroneckerP1": _types(IN_TYPES), "kroneckerP2": _types(IN_TYPES),
                "out": _types(OUT_TYPES), "quantScale": _types(SCALE_TYPES)}

    def check(self, a):
        checks.not_null(a, "x", "kroneckerP1", "kroneckerP2", "out", "quantScale")
        self.check_dtypes(a)
        self.check_dims(a)  # the op_api's CheckDim and CheckSpecialIOShape (the specific message of each)
        if a.out.dtype != Q.FLOAT4_E2M1:
            self.check_out_shape(a)
        for t in (a.x, a.out, a.quantScale):
            if checks.is_private_format(t.format):
                raise _invalid(" op [flat_quant] currently only supports ND format.")
        if not 0 < a.clipRatio <= 1:
            raise _invalid("clipRatio must be within the range of (0,1], clipRatio [%f]." % a.clipRatio)
        self.check_more(a)

    def check_more(self, a):
        a.dst_max, a.group_list_type = 0.0, 0

    def check_dtypes(self, a):
        for name in ("x", "kroneckerP1", "kroneckerP2"):
            checks.dtype_in(name, getattr(a, name), _types(IN_TYPES))
        if a.out.dtype not in _types(OUT_TYPES):
            raise _invalid("Tensor out should be in dtype support list %s" % dtypes.serial_list(_types(OUT_TYPES)))
        if a.quantScale.dtype not in _types(SCALE_TYPES):
            raise _invalid("Tensor scale should be in dtype support list %s"
                           % dtypes.serial_list(_types(SCALE_TYPES)))
        checks.same_dtype("x", a.x, "kroneckerP1", a.kroneckerP1)
        checks.same_dtype("x", a.x, "kroneckerP2", a.kroneckerP2)

    def check_dims(self, a):
        fp4 = a.out.dtype == Q.FLOAT4_E2M1
        if not fp4:
            if a.quantScale.ndim != 1:
                raise _invalid("quantScaleShape dim should be 1.")
            if a.kroneckerP2.ndim != 2:
                raise _invalid("kroneckerP2 tensor should be 2D.")
        if a.kroneckerP1.ndim != 2:
            raise _invalid("kroneckerP1 tensor should be 2D.")
        if a.x.ndim != 3:
            raise _invalid("x tensor should be 3D.")
        if fp4:
            if a.out.ndim != 2:
                raise _invalid("out tensor should be 2D.")
            if a.quantScale.ndim != 3:
                raise _invalid("quantScale tensor should be 3D.")
        else:
            if a.out.ndim != 3:
                raise _invalid("out tensor should be 3D.")
            if a.quantScale.ndim != 1:
                raise _invalid("quantScale tensor should be 1D.")
        k, m, n = a.x.shape
        if not (k > 0 and m > 0 and n > 0):
            raise _invalid("x sizes should greater than 0.")
        if k > MAX_K or m > MAX_MN or n > MAX_MN:
            raise _invalid("x dim0 should not exceed %d, x dim1 and dim2 should not exceed %d." % (MAX_K, MAX_MN))
        if a.out.dtype == Q.INT32 and n % 8:
            raise _invalid("if outType is int32, x last dim must be divisible by 8.")
        if a.out.dtype != Q.INT32 and n % 2:
            raise _invalid("x last dim must be divisible by 2.")
        if tuple(a.kroneckerP1.shape) != (m, m):
            raise _invalid("kroneckerP1 dim0 and dim1 should be same with x dim1.")
        if not fp4 and tuple(a.kroneckerP2.shape) != (n, n):
            raise _invalid("kroneckerP2 dim0 and dim1 should be same with x dim2.")
        if a.quantScale.shape[0] != k:
            raise _invalid("quantScale dim0 should be same with x dim0.")
        if fp4:
            # the op_api checks no more of the FP4 shapes; the kernel writes [K, M·N] and its MX scales
            if tuple(a.kroneckerP2.shape) not in ((0, 0), (n, n)):
                raise _invalid("kroneckerP2 should be [%d, %d], or [0, 0] for no right factor." % (n, n))
            expected = ((k, m * n), mx.scale_shape((k, m * n), 1, 32))
            if (tuple(a.out.shape), tuple(a.quantScale.shape)) != expected:
                raise _invalid("out and quantScale should be %s and %s for FLOAT4_E2M1."
                               % tuple(checks.shape_text(s) for s in expected))

    def check_out_shape(self, a):
        x, out = a.x.shape, a.out.shape
        for i in range(2):
            if x[i] != out[i]:
                raise _invalid("the dim(%d) of x must be same with out, x is (%d), out is (%d)." % (i, x[i], out[i]))
        if a.out.dtype == Q.INT32 and x[2] != out[2] * 8:
            raise _invalid("if outType is int32, the out last dim must be 1/8 of x last dim, x last dim is (%d), "
                           "out last dim is (%d)." % (x[2], out[2]))
        if a.out.dtype != Q.INT32 and x[2] != out[2]:
            raise _invalid("if outType is int4, x last dim must be equal with out last dim. x last dim is (%d), "
                           "out last dim is (%d)." % (x[2], out[2]))

    def compute(self, a, v, workspace):
        k = a.x.shape[0]
        rows = self.quantised_rows(a, v, k)
        code = a.x.dtype
        x = Q.widen(v["x"][:rows])
        p2 = Q.widen(v["kroneckerP2"])
        first = round_to(np.matmul(x, p2), code) if p2.size else x
        rotated = np.matmul(Q.widen(v["kroneckerP1"]), first)
        if a.out.dtype == Q.FLOAT4_E2M1:
            self.per_group(a, v, rotated.reshape(rows, -1), rows)
            return
        amax = np.max(np.abs(rotated), axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = (amax / np.float32(7.0 / a.clipRatio)).astype(np.float32)
            q = Q.quantize(rotated / scale[:, None, None], Q.INT4)
        q = np.concatenate([q, np.zeros((k - rows,) + q.shape[1:], q.dtype)]) if rows < k else q
        Q.store(v["out"], a.out, q)
        P.store(v["quantScale"], np.concatenate([scale, np.zeros(k - rows, np.float32)]))

    def per_group(self, a, v, x2, rows):
        elements, codes = mx.quantize(x2, 1, 32, Q.FLOAT4_E2M1, scale_alg=2, dst_max=a.dst_max)
        k = a.x.shape[0]
        if rows < k:
            elements = np.concatenate([elements, np.zeros((k - rows,) + elements.shape[1:], np.float32)])
            codes = np.concatenate([codes, np.zeros((k - rows,) + codes.shape[1:], codes.dtype)])
        mx.store_elements(v["out"], a.out, elements)
        v["quantScale"][...] = codes

    def quantised_rows(self, a, v, k):
        return k


class FlatQuantV2(FlatQuant):
    name = "aclnnFlatQuantV2"

    def check_more(self, a):
        if not (abs(a.dstTypeMax) <= np.finfo(float).eps or 6.0 <= a.dstTypeMax <= 12.0):
            raise _invalid("dstTypeMax must be 0 or in range [6, 12], dstTypeMax [%f]." % a.dstTypeMax)
        a.dst_max, a.group_list_type = float(a.dstTypeMax), 0


class FlatQuantV3(FlatQuantV2):
    name = "aclnnFlatQuantV3"
    inputs = ("x", "kroneckerP1", "kroneckerP2", "groupListOptional")

    def dtype_table(self):
        return super().dtype_table() | {"groupListOptional": (INT64,)}

    def check_more(self, a):
        super().check_more(a)
        groups, kind = a.groupListOptional, a.groupListType
        if _products.line() == "950" and groups is not None:
            raise _invalid("For ascend950, groupListOptional only support nullptr.")
        if _products.line() in ("A2", "A3") and groups is not None:
            if not 0 <= kind <= 2:
                raise _invalid("groupListType must be one of [0, 1, 2].")
            checks.dtype_in("groupListOptional", groups, (INT64,))
            if kind == 2 and (groups.ndim != 2 or groups.shape[1] != 2):
                raise _invalid("groupListOptional shape should be [G, 2] when groupListType is 2.")
            if kind != 2 and groups.ndim != 1:
                raise _invalid("groupListOptional shape should be [G] when groupListType is 0 or 1.")
            if groups.shape[0] > MAX_GROUPS:
                raise _invalid("groupListOptional dim0[%d] should be less than or equal to 1024." % groups.shape[0])
        a.group_list_type = kind

    def quantised_rows(self, a, v, k):
        """The kernel's GetQuantK: the rows the group list covers, or all of them."""
        if "groupListOptional" not in v or v["groupListOptional"].size == 0:
            return k
        groups = v["groupListOptional"].astype(np.int64)
        with np.errstate(over="ignore"):
            total = int(groups.reshape(-1)[-1] if a.group_list_type == 0 else
                        groups.sum() if a.group_list_type == 1 else groups[:, 1].sum())
        return total if 0 < total < k else k
