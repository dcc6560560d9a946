"""aclnnRmsNorm (ops-nn norm/rms_norm, an opbuild operator: its checks are the op definition's
dtype combinations and the tiling's shape rules) and aclnnLayerNorm (norm/layer_norm_v4 op_api).

Both normalise over trailing axes in fp32 (fp16/bf16 widened) and round once into each output.
rstd = 1 / sqrt(mean(x²) + eps) (RmsNorm) or 1 / sqrt(var(x) + eps) (LayerNorm, biased variance)."""
import functools
import math

import numpy as np

from opemu.core import checks, dtypes, kernels, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import rowwise as _rowwise

# (x, gamma, y) dtype combinations of rms_norm_def.cpp; rstd is always FLOAT
RMS_COMBINATIONS = (("FLOAT16", "FLOAT", "FLOAT16"), ("BF16", "FLOAT", "BF16"), ("FLOAT16", "FLOAT16", "FLOAT16"),
                    ("FLOAT", "FLOAT", "FLOAT"), ("BF16", "BF16", "BF16"))
RMS_LINES = ("A2", "A3", "950", "310P")
LAYER_NORM = P.per_product("FLOAT16 FLOAT", "BF16")


def _rms_combinations():
    combos = [tuple(dtypes.acl(n) for n in c) for c in RMS_COMBINATIONS]
    return [c for c in combos if _products.line() != "310P" or P.BF16 not in c]


def _widen(x):
    return x if x.dtype == np.float32 else x.astype(np.float32)


class RmsNorm(AclnnOp):
    name = "aclnnRmsNorm"
    inputs = ("x", "gamma")
    outputs = ("yOut", "rstdOut")
    products = _products.describe(RMS_LINES)

    def dtype_table(self):
        combos = _rms_combinations()
        return {"x": sorted({c[0] for c in combos}), "gamma": sorted({c[1] for c in combos}),
                "yOut": sorted({c[2] for c in combos}), "rstdOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "gamma", "yOut", "rstdOut")
        _products.check_supported(self.name, RMS_LINES)
        combo = (a.x.dtype, a.gamma.dtype, a.yOut.dtype)
        if combo not in _rms_combinations() or a.rstdOut.dtype != P.FLOAT:
            raise status.param_invalid(
                "The dtypes of x %s, gamma %s, yOut %s and rstdOut %s are not a supported combination."
                % tuple(dtypes.serial_name(t.dtype) for t in (a.x, a.gamma, a.yOut, a.rstdOut)))
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        n = a.gamma.ndim
        if not 1 <= a.x.ndim <= 8 or not 1 <= n <= a.x.ndim or a.gamma.is_empty():
            raise status.VendorError(tiling, "RmsNorm tiling: x rank %d and gamma rank %d are not supported "
                                     "(1 <= gamma rank <= x rank <= 8, gamma not empty)." % (a.x.ndim, n))
        if tuple(a.x.shape[a.x.ndim - n:]) != tuple(a.gamma.shape):
            raise status.VendorError(tiling, "RmsNorm tiling: gamma shape %s must equal the last dims of x %s."
                                     % (checks.shape_text(a.gamma.shape), checks.shape_text(a.x.shape)))
        if a.yOut.shape != a.x.shape:
            raise status.VendorError(tiling, "RmsNorm tiling: yOut shape %s must equal x shape %s."
                                     % (checks.shape_text(a.yOut.shape), checks.shape_text(a.x.shape)))
        # the tiling's rule: each rstd axis is 1 or x's axis, whatever the rank (ggml passes x's rank - 1);
        # one value per normalised row must fit
        rows = math.prod(a.x.shape[:a.x.ndim - n])
        if (a.rstdOut.ndim > a.x.ndim or math.prod(a.rstdOut.shape) != rows
                or any(r not in (1, d) for r, d in zip(a.rstdOut.shape, a.x.shape))):
            raise status.VendorError(tiling, "RmsNorm tiling: rstdOut shape %s does not fit x %s (each axis 1 or "
                                     "x's, one value per row)." % (checks.shape_text(a.rstdOut.shape),
                                                                   checks.shape_text(a.x.shape)))
        a.axes = tuple(range(a.x.ndim - n, a.x.ndim))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n = a.gamma.ndim
        x = _rowwise.rows_in(v["x"], n)
        gamma = _widen(v["gamma"]).reshape(-1)
        y, rstd = _rowwise.RowsOut(v["yOut"], n), _rowwise.RowsOut(v["rstdOut"], 0)
        epsilon, cols = np.float32(a.epsilon), x.shape[1]

        def block(lo, hi):
            rstd.rows[lo:hi, 0] = normalize_block(_rowwise.in_fp32(x[lo:hi], 1), False, epsilon, gamma, None, y.rows[lo:hi])[1]

        _rowwise.each_block(x.shape[0], cols, block)
        y.finish()
        rstd.finish()

    def prepare(self, a, v):
        return _prepared(v["x"], a.gamma.ndim, np.float32(a.epsilon), v["gamma"], None, v["yOut"],
                         (None, v["rstdOut"]), False)


def _mean_square(block):
    """Per-row mean of the squares, accumulated in fp32 by NumPy's pairwise row sums (what
    csrc/kernels/norms.c reproduces)."""
    rows, cols = block.shape
    return _rowwise.row_sums(np.multiply(block, block, out=_rowwise.scratch(rows, cols, 3))) / np.float32(cols)


def _dense_rows(*blocks):
    return all(b.strides[1] == 4 and b.strides[0] % 4 == 0 for b in blocks)


def _kernel_call(lib, centre, block, epsilon, weight, bias, work, mean, rstd):
    """csrc/kernels/norms.c's call on dense fp32 rows of block into work, its arguments bound: mean (when
    centre) and rstd get one fp32 value per row; weight and bias are contiguous fp32, or None. A pointer to
    a contiguous array holds it; block's and work's rows may be strided views of memory the caller holds."""
    rows, cols = block.shape
    pointer = kernels.float_pointer
    return functools.partial(lib.opemu_kernel_norm_rows, int(centre), pointer(block), block.strides[0] // 4, rows,
                             cols, epsilon, pointer(weight), pointer(bias), pointer(work), work.strides[0] // 4,
                             pointer(mean), pointer(rstd), pointer(_rowwise.scratch(1, cols, 3)))


def _prepared(x, n, epsilon, weight, bias, out, stats, centre):
    """The kernel's call for a whole norm on dense fp32 rows of one block (what compute's one block does,
    the statistics written straight into their outputs), or None. stats: (mean, rstd) views or None."""
    lib = kernels.lib()
    x, out = _rowwise.as_rows(x, n), _rowwise.as_rows(out, n)
    if (lib is None or x is None or out is None or x.size == 0 or x.dtype != np.float32 or out.dtype != np.float32
            or not _rowwise.one_block(*x.shape) or not _dense_rows(x, out)):
        return None
    flat = [None if t is None else _rowwise.flat_fp32(t) for t in (weight, bias) + stats]
    if any(f is None and t is not None for f, t in zip(flat, (weight, bias) + stats)):
        return None
    mean, rstd = (f if f is not None else np.empty(x.shape[0], np.float32) for f in flat[2:])
    return _kernel_call(lib, centre, x, epsilon, flat[0], flat[1], out, mean if centre else None, rstd)


def normalize_block(block, centre, epsilon, weight, bias, out):
    """(mean or None, rstd) of fp32 rows, and out = (block - mean) * rstd [* weight] [+ bias] in fp32, rounded
    once into out: one C kernel call (csrc/kernels/norms.c) for dense rows, else the NumPy reference."""
    rows, cols = block.shape
    work = out if out.dtype == np.float32 else _rowwise.scratch(rows, cols)
    lib = kernels.lib()
    if lib is not None and cols and _dense_rows(block, work):
        mean = np.empty(rows, np.float32) if centre else None
        rstd = np.empty(rows, np.float32)
        weight, bias = (None if t is None else np.ascontiguousarray(t) for t in (weight, bias))
        _kernel_call(lib, centre, block, epsilon, weight, bias, work, mean, rstd)()
    else:
        mean = _rowwise.row_sums(block) / np.float32(cols) if centre else None
        centred = np.subtract(block, mean[:, None], out=_rowwise.scratch(rows, cols, 2)) if centre else block
        rstd = 1 / np.sqrt(_mean_square(centred) + epsilon, dtype=np.float32)
        np.multiply(centred, rstd[:, None], out=work)
        if weight is not None:
            work *= weight
        if bias is not None:
            work += bias
    if work is not out:
        P.store(out, work)
    return mean, rstd


class LayerNorm(AclnnOp):
    name = "aclnnLayerNorm"
    inputs = ("input", "weightOptional", "biasOptional")
    outputs = ("out", "meanOutOptional", "rstdOutOptional")

    def dtype_table(self):
        return {name: LAYER_NORM() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "input", "normalizedShape", "out")
        allowed = LAYER_NORM()
        checks.dtype_in("input", a.input, allowed)
        for name in ("weightOptional", "biasOptional"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, allowed)
                if t.dtype != P.FLOAT:
                    checks.same_dtype(name, t, "input", a.input)
        if a.weightOptional is not None and a.biasOptional is not None:
            checks.same_dtype("weightOptional", a.weightOptional, "biasOptional", a.biasOptional)
        for name in ("out", "meanOutOptional", "rstdOutOptional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.max_dim(name, getattr(a, name))
        shape = tuple(a.normalizedShape)
        if len(shape) > 8:
            raise status.param_invalid("Expected aclnnLayerNorm normalizedShape dim [%d] to not be greater than [8] "
                                       "but check failed." % len(shape))
        if len(shape) < 1:
            raise status.param_invalid("Expected aclnnLayerNorm normalizedShape len [0] to be greater than [1] but "
                                       "check failed.")
        if a.input.ndim < len(shape):
            raise status.param_invalid("The input tensor must have at least %d dimensions." % len(shape))
        for name in ("weightOptional", "biasOptional"):
            if getattr(a, name) is not None:
                checks.dim_is(name, getattr(a, name), len(shape))
        begin = a.input.ndim - len(shape)
        for i, d in enumerate(shape):
            if d != a.input.shape[begin + i]:
                raise status.param_invalid("Expected normalized index [%d] shape [%d] be equal to input index [%d] "
                                           "shape [%d], but failed." % (i, d, begin + i, a.input.shape[begin + i]))
            for name, word in (("weightOptional", "weight"), ("biasOptional", "bias")):
                t = getattr(a, name)
                if t is not None and t.shape[i] != d:
                    raise status.param_invalid("Expected normalized index [%d] shape [%d] be equal to %s index [%d] "
                                               "shape [%d], but failed." % (i, d, word, i, t.shape[i]))
        checks.same_shape("input", a.input, "out", a.out)
        stats = a.input.numel() // max(int(np.prod(shape)), 1) if shape else 0
        for name in ("meanOutOptional", "rstdOutOptional"):
            t = getattr(a, name)
            if t is not None and not t.is_empty() and t.numel() != stats:
                raise status.param_invalid("Expected %s to hold one value per normalized row (%d), but its shape is %s."
                                           % (name, stats, checks.shape_text(t.shape)))
        a.axes = tuple(range(begin, a.input.ndim))

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            return
        n = len(a.axes)
        x = _rowwise.rows_in(v["input"], n)
        weight, bias = (None if getattr(a, name) is None else _widen(v[name]).reshape(-1)
                        for name in ("weightOptional", "biasOptional"))
        out = _rowwise.RowsOut(v["out"], n)
        # mean and rstd hold one value per row, whatever their shape: one row of `rows` values
        stats = {name: _rowwise.RowsOut(v[name], v[name].ndim) for name in ("meanOutOptional", "rstdOutOptional")
                 if name in v and v[name].size}
        epsilon, cols = np.float32(a.eps), x.shape[1]

        def block(lo, hi):
            mean, inverse = normalize_block(_rowwise.in_fp32(x[lo:hi], 1), True, epsilon, weight, bias, out.rows[lo:hi])
            for name, value in (("meanOutOptional", mean), ("rstdOutOptional", inverse)):
                if name in stats:
                    P.store(stats[name].rows[0, lo:hi], value)

        _rowwise.each_block(x.shape[0], cols, block)
        for rows in [out] + list(stats.values()):
            rows.finish()

    def prepare(self, a, v):
        stats = tuple(v[name] if name in v and v[name].size else None
                      for name in ("meanOutOptional", "rstdOutOptional"))
        return _prepared(v["input"], len(a.axes), np.float32(a.eps), v.get("weightOptional"), v.get("biasOptional"),
                         v["out"], stats, True)
